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

// TestBackendURLMistakesNameTheFix: a password in an s3:// URL's endpoint
// parameter stays out of the output and --json (it was printed verbatim),
// and a postgres:// URL with a bad sslmode gets a hint about its
// parameters (it was told to chmod a password file); both exit 3.
func TestBackendURLMistakesNameTheFix(t *testing.T) {
	dir := workspace(t)
	for _, c := range []struct{ url, want, secret string }{
		{"s3://b/p?endpoint=http://u:EndpointLeak9@127.0.0.1:1&region=us-east-1&use_path_style=true", "user information in its endpoint", "EndpointLeak9"},
		{"postgres://u:PgLeak9@127.0.0.1:1/db?sslmode=bogus", "fix the URL's parameters", "PgLeak9"},
	} {
		for _, json := range []bool{false, true} {
			args := []string{"--backend", c.url, "-s", "dev", "--non-interactive", "preview"}
			if json {
				args = append([]string{"--json"}, args...)
			}
			r := run(t, dir, "", nil, args...)
			out := r.Stdout + r.Stderr
			if r.Code != 3 || !strings.Contains(out, c.want) {
				t.Errorf("runner %v exited %d, want 3 saying %q:\n%s", args, r.Code, c.want, out)
			}
			if strings.Contains(out, c.secret) {
				t.Errorf("runner %v shows the password:\n%s", args, out)
			}
			if strings.Contains(out, "chmod") {
				t.Errorf("runner %v gives a hint about a password file:\n%s", args, out)
			}
		}
	}
}
