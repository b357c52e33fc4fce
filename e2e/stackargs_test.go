package e2e

import (
	"strings"
	"testing"
)

// TestStackCommandUsageErrors: a stack command given what it does not take,
// or missing what it needs, is a usage error (exit 2) that says so, never
// a listing (before: `stack history extra` and `stack tag ls extra` listed
// and exited 0; `stack import` without --file printed the whole help and
// exited 1).
func TestStackCommandUsageErrors(t *testing.T) {
	dir := deployable(t)
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"stack", "import"}, "stack import needs --file FILE"},
		{[]string{"stack", "history", "extra"}, "stack history takes no arguments"},
		{[]string{"stack", "tag", "ls", "extra"}, "stack tag ls takes no arguments"},
	} {
		r := runAs(t, dir, "", nil, append([]string{"-s", "dev", "--non-interactive"}, tt.args...)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tt.says) || r.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tt.args, r.Code, r.Stdout, r.Stderr, tt.says)
		}
	}
}
