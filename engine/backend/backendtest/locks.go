package backendtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
)

// deadPID returns the pid of a process of this host that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if err := cmd.Run(); err != nil {
		t.Fatalf("running a short-lived process: %v", err)
	}
	return cmd.Process.Pid
}

func lockedErr(t *testing.T, err error) *backend.LockedError {
	t.Helper()
	var le *backend.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a *backend.LockedError", err)
	}
	return le
}

func testLockExclusive(t *testing.T, b backend.Store) {
	ctx := context.Background()
	me := backend.CurrentLockInfo("runner up")
	l, err := b.Lock(ctx, project, stack, me)
	if err != nil {
		t.Fatal(err)
	}
	le := lockedErr(t, func() error {
		_, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner destroy"))
		return err
	}())
	if le.Stale || le.Holder.Command != "runner up" {
		t.Fatalf("LockedError = %+v, want the live holder", le)
	}
	for _, part := range []string{fmt.Sprintf("pid %d", me.PID), "host " + me.Host, "runner up"} {
		if !strings.Contains(le.Error(), part) {
			t.Errorf("%q does not name %q", le.Error(), part)
		}
	}
	if h, err := b.LockHolder(ctx, project, stack); err != nil || h == nil || h.PID != me.PID || h.Host != me.Host {
		t.Fatalf("LockHolder = %+v, %v", h, err)
	}
	if ps, err := b.LockedProjects(ctx, stack); err != nil || fmt.Sprint(ps) != "[network]" {
		t.Fatalf("LockedProjects = %v, %v", ps, err)
	}
	other, err := b.Lock(ctx, "app", stack, me) // another project is not held up
	if err != nil {
		t.Fatal(err)
	}
	other.Unlock()
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if h, err := b.LockHolder(ctx, project, stack); err != nil || h != nil {
		t.Fatalf("LockHolder after Unlock = %+v, %v", h, err)
	}
	// A lock cleared by force and taken by another is not released by its
	// old holder.
	l2, err := b.Lock(ctx, project, stack, me)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ForceUnlock(ctx, project, stack); err != nil {
		t.Fatal(err)
	}
	l3, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner refresh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Unlock(); err == nil {
		t.Fatal("the old holder released the new holder's lock")
	}
	if h, _ := b.LockHolder(ctx, project, stack); h == nil || h.Command != "runner refresh" {
		t.Fatalf("holder = %+v, want runner refresh", h)
	}
	l3.Unlock()
	if err := b.ForceUnlock(ctx, project, stack); err != nil {
		t.Fatalf("ForceUnlock of a lock not taken: %v", err)
	}
}

func testLockStackWide(t *testing.T, b backend.Store) {
	ctx := context.Background()
	me := backend.CurrentLockInfo("runner up")
	l, err := b.LockStack(ctx, stack, me)
	if err != nil {
		t.Fatal(err)
	}
	le := lockedErr(t, func() error {
		_, err := b.LockStack(ctx, stack, backend.CurrentLockInfo("runner stack rm"))
		return err
	}())
	if !le.StackWide || le.Stale || !strings.Contains(le.Error(), fmt.Sprintf("pid %d", me.PID)) {
		t.Fatalf("LockedError = %v (%+v)", le, le)
	}
	if h, err := b.StackLockHolder(ctx, stack); err != nil || h == nil || h.Command != "runner up" {
		t.Fatalf("StackLockHolder = %+v, %v", h, err)
	}
	other, err := b.LockStack(ctx, "prod", me) // another stack is not held up
	if err != nil {
		t.Fatal(err)
	}
	other.Unlock()
	pl, err := b.Lock(ctx, project, stack, me) // nor a project's own lock
	if err != nil {
		t.Fatal(err)
	}
	pl.Unlock()
	if err := b.ForceUnlockStack(ctx, stack); err != nil {
		t.Fatal(err)
	}
	if h, err := b.StackLockHolder(ctx, stack); err != nil || h != nil {
		t.Fatalf("StackLockHolder after ForceUnlockStack = %+v, %v", h, err)
	}
	// Its old holder's Unlock fails where the store can tell that the lock
	// is gone; an S3 store whose conditional DELETE of a missing object
	// succeeds cannot (release is that one request), and nothing is lost:
	// a lock another holder took is never released (LockExclusive).
	_ = l.Unlock()
	l2, err := b.LockStack(ctx, stack, me)
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Unlock(); err != nil {
		t.Fatal(err)
	}
}
