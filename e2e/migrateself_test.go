package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackMigrateToItselfIsRefused: `stack migrate --to` the backend the
// stack is already in, under another spelling of its URL (the folder
// through a symbolic link, the S3 endpoint without its scheme, the
// database with its password, another scheme name and its schema named),
// is refused with exit 3 naming both URLs (no password), and the state is
// as it was. Before, it reported every project "identical" and advised
// `runner stack rm`, which would remove the only copy.
func TestStackMigrateToItselfIsRefused(t *testing.T) {
	refused := func(t *testing.T, dir string, env []string, to, from string, secrets ...string) {
		// to may hold a password: messages name the backend by from.
		t.Helper()
		r := run(t, dir, "", env, "-s", "dev", "stack", "migrate", "--to", to)
		out := r.Stdout + r.Stderr
		if r.Code != 3 || !strings.Contains(r.Stderr, "already in") || strings.Contains(out, "stack rm` removes") {
			t.Fatalf("migrate to the backend at %s under another spelling: exit %d, want 3 saying it is the backend the stack is in:\n%s", from, r.Code, out)
		}
		if !strings.Contains(r.Stderr, from) {
			t.Errorf("the refusal does not name the stack's backend %s:\n%s", from, r.Stderr)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Fatalf("the refusal holds a secret:\n%s", out)
			}
		}
		if o := run(t, dir, "", env, "-s", "dev", "stack", "output", "--project", "network", "--json"); o.Code != 0 {
			t.Fatalf("the state after the refusal: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
		}
	}
	t.Run("folder", func(t *testing.T) {
		dir := deployable(t)
		ok(t, dir, "--non-interactive", "up", "--yes")
		link := filepath.Join(t.TempDir(), "state")
		if err := os.Symlink(filepath.Join(dir, ".runner"), link); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, nil, "file://"+link+"/", dir)
	})
	t.Run("s3", func(t *testing.T) {
		srv, dir, env, _ := s3Deployed(t)
		other := "s3://" + srv.Bucket + "/team/state/?region=us-east-1&s3ForcePathStyle=true&disableSSL=true&endpoint=" +
			strings.TrimPrefix(srv.Endpoint, "http://")
		refused(t, dir, env, other, "team/state", srv.SecretKey)
	})
	t.Run("postgres", func(t *testing.T) {
		dir, srv, db, env := pgWorkspace(t)
		if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
			t.Fatalf("up: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		other := "postgresql" + strings.TrimPrefix(srv.URL(db, true), "postgres") + "&schema=public"
		refused(t, dir, env, other, "/"+db, srv.Password)
	})
}
