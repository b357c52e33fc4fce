package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// TestDestroyDuringUpIsRefused holds the stack's lock as a running `runner
// up` does, and checks that a destroy of the same stack is refused at once,
// naming the holder, and changes nothing; then that a lock its holder left
// behind (the process is gone) is cleared by `runner stack unlock`, or
// taken over by the next destroy.
func TestDestroyDuringUpIsRefused(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.LockStack(context.Background(), "dev", backend.CurrentLockInfo("runner up (the other one)"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"destroy", "--yes"}, {"up", "--yes"}, {"refresh", "--yes"}} {
		r := run(t, dir, "", nil, append([]string{"-s", "dev", "--non-interactive"}, args...)...)
		out := r.Stdout + r.Stderr
		want := fmt.Sprintf("stack dev is locked by runner up (the other one) (pid %d", os.Getpid())
		if r.Code == 0 || !strings.Contains(out, want) {
			t.Fatalf("%s while the stack is locked: exit %d, want a refusal saying %q:\n%s", args[0], r.Code, want, out)
		}
	}
	if _, err := os.Stat(checkpointFile(dir, "dev", "app")); err != nil {
		t.Fatalf("the refused destroy changed the state: %v", err)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}

	// A stack lock whose holder was killed.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	holder, _ := json.Marshal(backend.LockInfo{PID: gone.Process.Pid, Host: host, Command: "runner up", Started: time.Now()})
	if err := os.WriteFile(stackLockFile(dir, "dev"), holder, 0o644); err != nil {
		t.Fatal(err)
	}
	r := ok(t, dir, "-s", "dev", "stack", "unlock", "--project", "app")
	if !strings.Contains(r.Stdout, "cleared the lock of stack dev") {
		t.Fatalf("unlock did not clear the stack lock:\n%s", r.Stdout)
	}
	// Left again: the next destroy takes it over, naming the dead holder.
	if err := os.WriteFile(stackLockFile(dir, "dev"), holder, 0o644); err != nil {
		t.Fatal(err)
	}
	r = ok(t, dir, "-s", "dev", "--non-interactive", "destroy", "--yes")
	if !strings.Contains(r.Stdout+r.Stderr, fmt.Sprintf("took over the lock of stack dev from runner up (pid %d", gone.Process.Pid)) {
		t.Errorf("destroy over a dead holder's stack lock does not say it took it over:\n%s%s", r.Stdout, r.Stderr)
	}
}
