package e2e

import (
	"strings"
	"testing"
)

// TestUnknownBackendScheme: a backend URL whose scheme no backend serves,
// by flag or environment, is a validation error (exit 3) naming the URL
// and the schemes runner knows, and nothing is written.
func TestUnknownBackendScheme(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	before := tree(t, dir)
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"--backend", "gs://bucket/state", "stack", "ls"}},
		{[]string{"RUNNER_BACKEND_URL=gs://bucket/runner"}, []string{"-s", "dev", "stack", "history"}},
	} {
		r := run(t, dir, "", c.env, c.args...)
		if r.Code != 3 {
			t.Fatalf("runner %v (%v) exited %d, want 3\n%s%s", c.args, c.env, r.Code, r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "no backend serves the scheme") || !strings.Contains(r.Stderr, "the known schemes are file://") {
			t.Errorf("runner %v does not name the known schemes:\n%s", c.args, r.Stderr)
		}
	}
	if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("an unknown backend changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
}
