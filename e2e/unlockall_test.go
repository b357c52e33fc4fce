package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// TestOneUnlockClearsWhatAKilledUpLeft: an `up` killed while projects ran
// side by side leaves the stack's lock and a lock in each project it was
// working on. The refusal says to run `runner stack unlock`, and that one
// command (no --project) clears every lock of the dead holder, so that the
// next up succeeds; it did not before (stack unlock needed --project, and
// the lock of each other project then stopped up again).
func TestOneUnlockClearsWhatAKilledUpLeft(t *testing.T) {
	dir := deployable(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	holder, _ := json.Marshal(backend.LockInfo{PID: gone.Process.Pid, Host: host, Command: "runner up", Started: time.Now()})
	stackDir := filepath.Join(dir, ".runner", "stacks", "dev")
	for _, d := range []string{stackDir, filepath.Join(stackDir, "ca"), filepath.Join(stackDir, "secrets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "lock.json"), holder, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes")
	if r.Code != 4 || !strings.Contains(r.Stderr, "`runner stack unlock`") {
		t.Fatalf("up over a killed up's locks exited %d, want 4 saying to run `runner stack unlock`:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = run(t, dir, "", nil, "-s", "dev", "stack", "unlock")
	if r.Code != 0 {
		t.Fatalf("stack unlock exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"cleared the lock of stack dev", "cleared the lock of project ca", "cleared the lock of project secrets"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stack unlock does not say %q:\n%s", want, r.Stdout)
		}
	}
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	r = ok(t, dir, "-s", "dev", "stack", "unlock")
	if !strings.Contains(r.Stdout, "stack dev is not locked") {
		t.Errorf("stack unlock of a stack nothing holds says:\n%s", r.Stdout)
	}

	// A holder that still runs (this test) is refused with the exit code
	// of a held lock, unless --force.
	live, _ := json.Marshal(backend.LockInfo{PID: os.Getpid(), Host: host, Command: "runner up", Started: time.Now()})
	if err := os.WriteFile(filepath.Join(stackDir, "app", "lock.json"), live, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"stack", "unlock"}, {"stack", "unlock", "--project", "app"}} {
		r = run(t, dir, "", nil, append([]string{"-s", "dev"}, args...)...)
		if r.Code != 4 || !strings.Contains(r.Stderr, "may still run") {
			t.Errorf("runner %s over a live holder: exit %d, want 4:\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		}
	}
	ok(t, dir, "-s", "dev", "stack", "unlock", "--force")

	// A holder on another host is never judged stale from this one: its
	// pid means nothing here (it used to be cleared without --force).
	remote, _ := json.Marshal(backend.LockInfo{PID: gone.Process.Pid, Host: "another-host", Command: "runner up", Started: time.Now()})
	if err := os.WriteFile(filepath.Join(stackDir, "app", "lock.json"), remote, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", nil, "-s", "dev", "stack", "unlock", "--project", "app")
	if _, err := os.Stat(filepath.Join(stackDir, "app", "lock.json")); r.Code != 4 || err != nil {
		t.Errorf("stack unlock --project app over a holder on another host: exit %d, lock file %v, want 4 and the lock kept:\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	ok(t, dir, "-s", "dev", "stack", "unlock", "--project", "app", "--force")
}
