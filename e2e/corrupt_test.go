package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACorruptSnapshotDoesNotBlockTheStack: a truncated snapshot.json of
// one project must not stop every command of the stack at "reading how the
// state is encrypted". The other projects still preview, the broken one
// fails naming its file, and `stack import` (what stack ls suggests)
// restores it, after which preview and up succeed with nothing to create.
func TestACorruptSnapshotDoesNotBlockTheStack(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	backup := filepath.Join(t.TempDir(), "network.json")
	ok(t, dir, "stack", "export", "--project", "network", "--file", backup)
	snap := checkpointFile(dir, "dev", "network")
	data, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}

	r := run(t, dir, "", nil, "--non-interactive", "preview", "--target", "network", "--target", "secrets")
	out := r.Stdout + r.Stderr
	if r.Code != 1 || !strings.Contains(out, snap) {
		t.Errorf("preview with network's snapshot cut in half exited %d, want 1 naming %s:\n%s", r.Code, snap, out)
	}
	if strings.Contains(out, "reading how the state of stack dev is encrypted") {
		t.Errorf("one corrupt snapshot blocks the whole stack:\n%s", out)
	}

	r = run(t, dir, "", nil, "stack", "import", "--project", "network", "--file", backup)
	if r.Code != 0 {
		t.Fatalf("stack import over the corrupt snapshot exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	ok(t, dir, "--non-interactive", "preview")
	r = ok(t, dir, "--json", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	for project, row := range summary(t, r.Stdout) {
		if n := changes(row); n != 0 {
			t.Errorf("up after the import changed %d resources of %s", n, project)
		}
	}
}
