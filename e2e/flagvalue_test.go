package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAFlagWithoutItsValueAtTheEnd: `runner config set app:x 5 --stack`
// (the value forgotten) must say that --stack needs a value; it used to
// take the command's first argument as the stack name ("the stack app:x
// ... differs", or "config get takes one KEY"), and no file may change.
func TestAFlagWithoutItsValueAtTheEnd(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "-s", "dev", "config", "set", "app:port", "8080")
	cfg := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	before, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"config", "get", "app:port", "--stack"},
		{"config", "set", "app:x", "5", "--stack"},
		{"--json", "config", "set", "app:x", "5", "-s"},
		{"preview", "--target"},
	} {
		r := run(t, dir, "", nil, args...)
		out := r.Stdout + r.Stderr
		flag := args[len(args)-1]
		want := "flag " + flag + " needs a value"
		if r.Code != 2 || !strings.Contains(out, want) {
			t.Errorf("runner %s: exit %d, want 2 saying %q:\n%s", strings.Join(args, " "), r.Code, want, out)
		}
	}
	if after, _ := os.ReadFile(cfg); string(after) != string(before) {
		t.Errorf("the stack config changed:\n%s", after)
	}
}
