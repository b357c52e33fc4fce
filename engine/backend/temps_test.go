package backend

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
)

// TestLockRemovesTempsOfKilledWrites leaves the temporary files that
// killed writes leave (a snapshot, a journal seal, a history copy, an old
// lock attempt, old tags) and checks that the next open of the project
// (taking its lock) and of the stack (taking the stack lock) removes them,
// but not the fresh temporary file of a process trying to take the lock
// right now.
func TestLockRemovesTempsOfKilledWrites(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	p, _ := f.paths("network", "dev")
	old := time.Now().Add(-time.Minute)
	mk := func(path string, age time.Time) string {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("cut short"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, age, age)
		return path
	}
	now := time.Now()
	gone := []string{
		mk(filepath.Join(filepath.Dir(p.snapshot), ".dev.json.tmp-1234"), old),
		mk(filepath.Join(p.dir, ".journal.jsonl.tmp-5678"), now),
		mk(filepath.Join(p.history, ".20260102T030405.000000000Z.json.tmp-9"), now),
		mk(filepath.Join(filepath.Dir(p.lock), ".runner.json.tmp-111"), old),
		mk(filepath.Join(p.stackDir, ".tags.json.tmp-222"), old),
		mk(filepath.Join(p.stackDir, ".lock.json.tmp-333"), old),
	}
	kept := []string{
		mk(filepath.Join(filepath.Dir(p.lock), ".runner.json.tmp-444"), now), // a locker at work
		mk(filepath.Join(filepath.Dir(p.snapshot), ".prod.json.tmp-7"), now), // another stack's write
		mk(filepath.Join(p.stackDir, ".tags.json.tmp-555"), now),             // a tag being set
		mk(filepath.Join(p.dir, "notes.tmp-666"), old),                       // not ours
	}
	l, err := f.Lock(ctx, "network", "dev", LockInfo{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	s, err := f.LockStack(ctx, "dev", LockInfo{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Unlock()
	for _, path := range gone {
		if fileExists(path) {
			t.Errorf("%s is left", path)
		}
	}
	for _, path := range kept {
		if !fileExists(path) {
			t.Errorf("%s was removed", path)
		}
	}
}

// TestStackLock takes the stack's own lock: a second taker gets a
// *LockedError that names the holder and says it is the stack's lock; once
// its holder is gone the next LockStack takes it over; ForceUnlockStack clears
// any.
func TestStackLock(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	l, err := f.LockStack(ctx, "dev", LockInfo{Command: "runner up"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.LockStack(ctx, "dev", LockInfo{Command: "runner destroy"})
	le, ok := err.(*LockedError)
	if !ok || !le.StackWide || le.Stale || le.Holder.Command != "runner up" {
		t.Fatalf("second LockStack = %#v", err)
	}
	if msg := err.Error(); msg != "stack dev is locked by runner up (pid "+itoa(os.Getpid())+" on host "+hostname()+", since "+le.Holder.Started.Format(time.RFC3339)+"); wait for it to finish, then run again" {
		t.Errorf("message: %s", msg)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	// A holder that no longer runs.
	dead := LockInfo{PID: deadPID(t), Host: hostname(), Command: "runner up"}
	if _, err := f.LockStack(ctx, "dev", dead); err != nil {
		t.Fatal(err)
	}
	if h, err := f.StackLockHolder(context.Background(), "dev"); err != nil || h == nil || h.PID != dead.PID {
		t.Fatalf("StackLockHolder = %v, %v", h, err)
	}
	taken, err := f.LockStack(ctx, "dev", LockInfo{Command: "runner destroy"})
	if err != nil || taken.Previous() == nil || taken.Previous().PID != dead.PID {
		t.Fatalf("LockStack over a dead holder = %v, want it taken over", err)
	}
	if err := f.ForceUnlockStack(context.Background(), "dev"); err != nil {
		t.Fatal(err)
	}
	if h, _ := f.StackLockHolder(context.Background(), "dev"); h != nil {
		t.Fatalf("still locked by %v", h)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("cannot run true, which gives a process that has exited: %v", err))
	}
	return cmd.Process.Pid
}
