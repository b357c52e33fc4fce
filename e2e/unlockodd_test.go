package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackUnlockOverOddLockFiles: files in a Pulumi lock folder that are
// no lock a Pulumi CLI wrote (empty, not JSON, null, a folder named
// x.json) are refused without --force, each named in a sentence that
// invents no holder (no "pid 0 on host ,", no year 1); `stack unlock
// --force` removes every one it can and names the one it cannot, instead
// of stopping at the first; and a live holder of runner's own project
// lock is refused in a sentence that says once what to do.
func TestStackUnlockOverOddLockFiles(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes", "--target", "network")
	locks := filepath.Join(dir, ".runner", ".pulumi", "locks", "organization", "network", "dev")
	odd := map[string]string{"empty.json": "", "garbage.json": "garbage\n", "null.json": "null\n"}
	for name, body := range odd {
		if err := os.WriteFile(filepath.Join(locks, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	folder := filepath.Join(locks, "dir.json")
	if err := os.MkdirAll(filepath.Join(folder, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "stack", "unlock")
	out := r.Stdout + r.Stderr
	if r.Code != 4 {
		t.Fatalf("stack unlock over odd lock files exited %d, want 4:\n%s", r.Code, out)
	}
	for name := range odd {
		if !strings.Contains(out, name) {
			t.Errorf("stack unlock does not name %s:\n%s", name, out)
		}
	}
	for _, bad := range []string{"pid 0", "on host ,", "host  ", "0001-01-01", "wait for it to finish"} {
		if strings.Contains(out, bad) {
			t.Errorf("stack unlock describes an unreadable lock with %q:\n%s", bad, out)
		}
	}
	r = run(t, dir, "", nil, "-s", "dev", "stack", "unlock", "--force")
	if out := r.Stdout + r.Stderr; r.Code == 0 || !strings.Contains(out, "dir.json") {
		t.Errorf("stack unlock --force over a folder named dir.json exited %d, want a failure naming it:\n%s", r.Code, out)
	}
	for name := range odd {
		if _, err := os.Stat(filepath.Join(locks, name)); err == nil {
			t.Errorf("stack unlock --force stopped before removing %s:\n%s%s", name, r.Stdout, r.Stderr)
		}
	}
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}

	// runner's own lock of network, held by a process that runs (this test).
	host, _ := os.Hostname()
	body := fmt.Sprintf(`{"pid":%d,"host":%q,"user":"bob","command":"runner up","started":"2026-11-28T10:00:00Z"}`, os.Getpid(), host)
	if err := os.WriteFile(filepath.Join(locks, "runner.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", nil, "-s", "dev", "stack", "unlock", "--project", "network")
	out = r.Stdout + r.Stderr
	if r.Code != 4 || !strings.Contains(out, "--force") || strings.Count(out, "wait for it") > 1 || strings.Contains(out, "again, which") {
		t.Errorf("stack unlock over a live runner lock: exit %d, want 4 saying once to wait or pass --force:\n%s", r.Code, out)
	}
	ok(t, dir, "-s", "dev", "stack", "unlock", "--project", "network", "--force")
}
