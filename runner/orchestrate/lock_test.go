package orchestrate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
)

// TestStackLockRefusesSecondMutation: while the stack's lock is held, up,
// refresh and destroy are refused with a *backend.LockedError naming the
// holder (preview still runs); a project lock held by another operation
// fails that project, and the run's error wraps its *backend.LockedError.
func TestStackLockRefusesSecondMutation(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	plug := &plugintest.Plugin{}
	projects := chain(diamond, diamondOrder, nil)
	held, err := b.LockStack(ctx, "dev", backend.LockInfo{PID: 42, Command: "runner up"})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{Up, Refresh, Destroy} {
		req, _ := request(op, b, plug, projects)
		_, err := Run(ctx, req)
		var locked *backend.LockedError
		if !errors.As(err, &locked) || !locked.StackWide || locked.Holder.PID != 42 {
			t.Fatalf("%s while the stack is locked = %v, want a stack *LockedError", op, err)
		}
	}
	if plug.Count("Create") != 0 {
		t.Fatal("a refused up created resources")
	}
	req, _ := request(Preview, b, plug, projects)
	if _, err := Run(ctx, req); err != nil {
		t.Fatalf("preview while the stack is locked: %v", err)
	}
	held.Unlock()

	projectLock, err := b.Lock(ctx, "c", "dev", backend.LockInfo{PID: 43, Command: "runner stack import"})
	if err != nil {
		t.Fatal(err)
	}
	defer projectLock.Unlock()
	req, _ = request(Up, b, plug, projects)
	_, err = Run(ctx, req)
	var locked *backend.LockedError
	if !errors.Is(err, ErrFailed) || !errors.As(err, &locked) || locked.Project != "c" || locked.Holder.PID != 43 {
		t.Fatalf("up with project c locked = %v, want ErrFailed wrapping c's *LockedError", err)
	}
}

// TestInterruptedBeforeTheStackLock: a run cancelled before it takes the
// stack's lock says it was interrupted and changed nothing.
func TestInterruptedBeforeTheStackLock(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, err := backend.Open("file://" + t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plug := &plugintest.Plugin{}
	req, _ := request(Up, nil, plug, chain(diamond, diamondOrder, nil))
	req.Backend = b
	_, err = Run(ctx, req)
	if !errors.Is(err, context.Canceled) || err.Error() != "up was interrupted before it started; nothing was changed: context canceled" {
		t.Fatalf("up cancelled before it started = %v", err)
	}
	if plug.Count("Create") != 0 {
		t.Fatal("a cancelled up created resources")
	}
}

// TestLostStackLockCancelsTheRun clears the stack's lock while an up runs
// (as `runner stack unlock --force` from another machine would): no
// project starts after that, and the run's error says the lock was lost
// (exit 4).
func TestLostStackLockCancelsTheRun(t *testing.T) {
	ctx := context.Background()
	full := &plugintest.Plugin{}
	req, _ := request(Up, plugintest.NewBackend(), full, chain(diamond, diamondOrder, nil))
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	b := plugintest.NewBackend()
	plug := &plugintest.Plugin{Latency: 20 * time.Millisecond}
	req, _ = request(Up, b, plug, chain(diamond, diamondOrder, nil))
	req.Parallel = 1
	go func() {
		for plug.Count("Create") < 1 {
			time.Sleep(2 * time.Millisecond)
		}
		_ = b.ForceUnlockStack(ctx, "dev")
	}()
	_, err := Run(ctx, req)
	if !errors.Is(err, backend.ErrLockLost) {
		t.Fatalf("up whose stack lock was cleared = %v, want it to wrap backend.ErrLockLost", err)
	}
	if n, all := plug.Count("Create"), full.Count("Create"); n >= all {
		t.Fatalf("%d of %d creates ran: the run went on after its stack lock was lost", n, all)
	}
}
