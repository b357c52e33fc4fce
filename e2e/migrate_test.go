package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/testserver"
)

// TestStackMigrateFolderToS3 deploys on the folder backend, migrates the
// stack to an S3 bucket, and runs from the bucket: the outputs are the
// same and a preview changes nothing. A migration is refused (exit 4,
// naming the holder) while a lock of the stack is held, and a second
// migration finds the copies identical.
func TestStackMigrateFolderToS3(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes")
	before := ok(t, dir, "-s", "dev", "stack", "output", "--project", "network", "--json").Stdout

	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.Lock(context.Background(), "network", "dev", backend.CurrentLockInfo("runner up (elsewhere)"))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", srv.Env, "-s", "dev", "stack", "migrate", "--to", srv.URL)
	if r.Code != 4 || !strings.Contains(r.Stderr, "runner up (elsewhere)") {
		t.Fatalf("migrate while a lock is held: exit %d, want 4 naming the holder:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}

	r = run(t, dir, "", srv.Env, "-s", "dev", "stack", "migrate", "--to", srv.URL)
	if r.Code != 0 || !strings.Contains(r.Stdout, "verified") {
		t.Fatalf("migrate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, srv.SecretKey) {
		t.Fatal("migrate printed the secret key")
	}
	again := run(t, dir, "", srv.Env, "-s", "dev", "stack", "migrate", "--to", srv.URL)
	if again.Code != 0 || !strings.Contains(again.Stdout, "identical") {
		t.Fatalf("a second migrate: exit %d\n%s%s", again.Code, again.Stdout, again.Stderr)
	}
	env := append(append([]string{}, srv.Env...), "RUNNER_BACKEND_URL="+srv.URL)
	after := run(t, dir, "", env, "-s", "dev", "stack", "output", "--project", "network", "--json")
	if after.Code != 0 || after.Stdout != before {
		t.Fatalf("outputs from the bucket differ:\nfolder %s\nbucket %s%s", before, after.Stdout, after.Stderr)
	}
	pv := run(t, dir, "", env, "--non-interactive", "preview", "--refresh=false")
	if pv.Code != 0 || strings.Contains(pv.Stdout, "+ create") {
		t.Fatalf("preview from the bucket after the migration: exit %d\n%s%s", pv.Code, pv.Stdout, pv.Stderr)
	}
}
