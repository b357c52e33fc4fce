package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
)

// TestStackRmDuringUpIsRefused: `stack rm --force` while an up holds the
// stack removed, one by one, the state of every project the up had
// finished (the up then failed on a missing stack reference, and the
// resources were orphaned), stopping with exit 4 only at the project the
// up was working on. It must be refused before removing anything, naming
// the holder, with exit 4.
func TestStackRmDuringUpIsRefused(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.LockStack(context.Background(), "dev", backend.CurrentLockInfo("runner up (the other one)"))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "stack", "rm", "dev", "--force", "--yes")
	want := fmt.Sprintf("stack dev is locked by runner up (the other one) (pid %d", os.Getpid())
	if r.Code != 4 || !strings.Contains(r.Stderr, want) {
		t.Errorf("stack rm while the stack is locked: exit %d, want 4 saying %q:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
	}
	for _, p := range []string{"network", "secrets"} {
		if _, err := os.Stat(checkpointFile(dir, "dev", p)); err != nil {
			t.Errorf("the refused stack rm removed the state of %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")); err != nil {
		t.Errorf("the refused stack rm removed the stack config: %v", err)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "-s", "dev", "--non-interactive", "destroy", "--yes")
	ok(t, dir, "-s", "dev", "stack", "rm", "dev", "--yes")
	if _, err := os.Stat(runnerStackDir(dir, "dev")); !os.IsNotExist(err) {
		t.Errorf("stack rm left the stack's folder (%v)", err)
	}
}
