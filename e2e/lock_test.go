package e2e

import (
	"bytes"
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

// TestConcurrentRunFailsNamingTheHolder holds a project's lock from this
// test process, as another runner would, and checks that runner fails at
// once with exit code 4 and a message naming the holder; then that it works
// once released.
func TestConcurrentRunFailsNamingTheHolder(t *testing.T) {
	dir := deployable(t)
	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.Lock(context.Background(), "network", "dev", backend.CurrentLockInfo("runner up (the other one)"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := run(t, dir, "", nil, "--non-interactive", "up", "--yes")
	took := time.Since(start)
	want := fmt.Sprintf("pid %d", os.Getpid())
	if r.Code != 4 || !strings.Contains(r.Stdout+r.Stderr, "runner up (the other one)") || !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Fatalf("exit %d; the output does not name the holder (%s):\n%s%s", r.Code, want, r.Stdout, r.Stderr)
	}
	if took > 20*time.Second {
		t.Fatalf("the locked run waited %s instead of failing at once", took)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "--non-interactive", "up", "--yes")
}

// TestHeldLockExits4 writes a project's lock file by hand, the way the
// folder backend does, held by a live process (a sleep started here), and
// checks that up, refresh and destroy each exit 4 naming the holder, with
// --json too; once the lock is gone, destroy succeeds.
func TestHeldLockExits4(t *testing.T) {
	dir := deployable(t)
	state := filepath.Join(dir, "network.json")
	network := strings.ReplaceAll(appState, "app", "network")
	if err := os.WriteFile(state, []byte(network), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "-s", "dev", "stack", "import", "--project", "network", "--file", state)

	holder := exec.Command("sleep", "120")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	host, _ := os.Hostname()
	info, _ := json.Marshal(backend.LockInfo{PID: holder.Process.Pid, Host: host, User: "someone",
		Started: time.Now().UTC(), Command: "runner up (held by the test)"})
	lockFile := projectLockFile(dir, "dev", "network")
	if err := os.WriteFile(lockFile, info, 0o644); err != nil {
		t.Fatal(err)
	}

	want := fmt.Sprintf("pid %d", holder.Process.Pid)
	for _, args := range [][]string{
		{"up", "--yes"}, {"refresh", "--yes"}, {"destroy", "--yes"},
		{"up", "--yes", "--json"}, {"refresh", "--yes", "--json"}, {"destroy", "--yes", "--json"},
	} {
		r := run(t, dir, "", nil, append([]string{"--non-interactive"}, args...)...)
		out := r.Stdout + r.Stderr
		if r.Code != 4 || !strings.Contains(out, "runner up (held by the test)") || !strings.Contains(out, want) {
			t.Fatalf("runner %s with the lock held: exit %d, want 4 naming the holder (%s)\n%s", strings.Join(args, " "), r.Code, want, out)
		}
	}
	if data, err := os.ReadFile(lockFile); err != nil || !bytes.Equal(data, info) {
		t.Fatalf("the held lock was changed: %q (%v)", data, err)
	}
	if err := os.Remove(lockFile); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "--non-interactive", "destroy", "--yes")
}
