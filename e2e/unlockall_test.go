package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// TestKilledUpsLocksAreTakenOver: an `up` killed while projects ran side
// by side leaves the stack's lock and a lock in each project it was working
// on. `stack ls` shows the run as interrupted; the next up takes every one
// of those locks over (its holder, a process of this host, no longer runs)
// with a warning naming it, and succeeds; `stack history` records the
// killed run as interrupted. Before, the next up exited 4 and a person had
// to run `runner stack unlock`. A holder that still runs, or one on another
// host, still needs `stack unlock --force`.
func TestKilledUpsLocksAreTakenOver(t *testing.T) {
	dir := deployable(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	holder, _ := json.Marshal(backend.LockInfo{PID: gone.Process.Pid, Host: host, Command: "runner up", Started: time.Now()})
	for _, path := range []string{stackLockFile(dir, "dev"), projectLockFile(dir, "dev", "ca"), projectLockFile(dir, "dev", "secrets")} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, holder, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := ok(t, dir, "-s", "dev", "stack", "ls")
	if !regexp.MustCompile(`(?m)^dev\*?\s.*interrupted$`).MatchString(r.Stdout) {
		t.Errorf("stack ls after a killed up does not show it interrupted:\n%s", r.Stdout)
	}

	r = run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes")
	if r.Code != 0 {
		t.Fatalf("up over a killed up's locks exited %d, want 0 (the dead holder's locks taken over):\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	dead := fmt.Sprintf("from runner up (pid %d on host %s", gone.Process.Pid, host)
	for _, what := range []string{"stack dev ", "stack dev of project ca ", "stack dev of project secrets "} {
		if !strings.Contains(r.Stdout+r.Stderr, "took over the lock of "+what+dead) {
			t.Errorf("up does not warn that it took over the lock of %s%s:\n%s%s", what, dead, r.Stdout, r.Stderr)
		}
	}
	r = ok(t, dir, "-s", "dev", "stack", "history")
	if n := strings.Count(r.Stdout, "interrupted"); n != 3 || !regexp.MustCompile(`\(stack\)\s+update\s+interrupted`).MatchString(r.Stdout) {
		t.Errorf("stack history records %d interrupted entries, want 3 (the stack, ca, secrets):\n%s", n, r.Stdout)
	}
	r = ok(t, dir, "-s", "dev", "stack", "ls")
	if strings.Contains(r.Stdout, "interrupted") {
		t.Errorf("stack ls after the up that converged still shows interrupted:\n%s", r.Stdout)
	}
	r = ok(t, dir, "-s", "dev", "stack", "unlock")
	if !strings.Contains(r.Stdout, "stack dev is not locked") {
		t.Errorf("stack unlock of a stack nothing holds says:\n%s", r.Stdout)
	}

	// A holder that still runs (this test) is refused with the exit code
	// of a held lock, unless --force.
	live, _ := json.Marshal(backend.LockInfo{PID: os.Getpid(), Host: host, Command: "runner up", Started: time.Now()})
	if err := os.WriteFile(projectLockFile(dir, "dev", "app"), live, 0o644); err != nil {
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
	if err := os.WriteFile(projectLockFile(dir, "dev", "app"), remote, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", nil, "-s", "dev", "stack", "unlock", "--project", "app")
	if _, err := os.Stat(projectLockFile(dir, "dev", "app")); r.Code != 4 || err != nil {
		t.Errorf("stack unlock --project app over a holder on another host: exit %d, lock file %v, want 4 and the lock kept:\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	ok(t, dir, "-s", "dev", "stack", "unlock", "--project", "app", "--force")
}
