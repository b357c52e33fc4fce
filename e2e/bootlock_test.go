package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLockOfAnEarlierBootIsTakenOverOnceExpired: the stack's lock in the
// workspace's folder, left by a run of this hostname on another boot (the
// machine crashed and restarted, its pids counted anew) whose lease
// expired, is taken over by the next up as a killed run's, as before locks
// recorded their boot; with a fresh lease (another machine of the same
// hostname, TestS3LockOfAMachineOfTheSameHostnameHolds) it holds.
func TestLockOfAnEarlierBootIsTakenOverOnceExpired(t *testing.T) {
	if _, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err != nil {
		t.Skipf("no boot id on this system: %v", err)
	}
	dir := workspace(t)
	ok(t, dir, "-s", "dev", "config", "set", "--secret", "app:adminPassword", adminPassword)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	t.Cleanup(func() { run(t, dir, "", nil, "-s", "dev", "--non-interactive", "destroy", "--yes") })
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	holder, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "host": host, "pidNamespace": ns, "bootID": "an-earlier-boot",
		"user": "ci", "started": time.Now().UTC().Add(-time.Hour), "command": "runner up", "leaseSeconds": 30})
	path := filepath.Join(dir, ".runner", ".runner", "stacks", "dev", "lock.json")
	if err := os.WriteFile(path, holder, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes")
	if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "took over the lock of stack dev") {
		t.Errorf("up over the expired lock of an earlier boot exited %d, want 0 taking it over:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
