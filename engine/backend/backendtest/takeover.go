package backendtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// testLockStale: a lock whose holder is a process of this host that no
// longer runs (its pid gone, or its pid now another process's) is taken
// over by the next Lock or LockStack, which names the dead holder
// (Previous) and records its run as interrupted in the history; a holder
// of another host is never judged from here and stays until ForceUnlock.
func testLockStale(t *testing.T, b backend.Store) {
	ctx := context.Background()
	me := backend.CurrentLockInfo("runner up")
	dead := deadPID(t)
	gone := backend.LockInfo{PID: dead, Host: me.Host, User: me.User, Started: time.Now().UTC().Add(-time.Minute), Command: "runner up"}
	if _, err := b.Lock(ctx, project, stack, gone); err != nil {
		t.Fatal(err)
	}
	l, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner refresh"))
	if err != nil {
		t.Fatalf("Lock over a dead holder of this host: %v, want it taken over", err)
	}
	if p := l.Previous(); p == nil || p.PID != dead || p.Command != "runner up" {
		t.Fatalf("Previous = %+v, want the dead holder (pid %d)", p, dead)
	}
	if h, _ := b.LockHolder(ctx, project, stack); h == nil || h.Command != "runner refresh" {
		t.Fatalf("holder after the takeover = %+v, want runner refresh", h)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	checkInterrupted(t, b, project, dead)

	// A pid that runs, but is another process than the holder (it started
	// at another time), is dead too; and the stack's own lock is taken over
	// the same way.
	reused := me
	reused.ProcessStart = "1"
	if _, err := b.LockStack(ctx, stack, reused); err != nil {
		t.Fatal(err)
	}
	sl, err := b.LockStack(ctx, stack, me)
	if err != nil {
		t.Fatalf("LockStack over a holder whose pid now is another process: %v, want it taken over", err)
	}
	if p := sl.Previous(); p == nil || p.ProcessStart != "1" {
		t.Fatalf("Previous = %+v, want the holder of process start 1", p)
	}
	if err := sl.Unlock(); err != nil {
		t.Fatal(err)
	}
	checkInterrupted(t, b, "", me.PID)

	// A free lock has no previous holder.
	free, err := b.Lock(ctx, project, stack, me)
	if err != nil || free.Previous() != nil {
		t.Fatalf("Lock of a free lock: %v, previous %+v", err, free.Previous())
	}
	free.Unlock()

	// The same pid on another host is never judged from this one.
	elsewhere := gone
	elsewhere.Host = me.Host + "-elsewhere"
	if _, err := b.Lock(ctx, project, stack, elsewhere); err != nil {
		t.Fatal(err)
	}
	le := lockedErr(t, func() error { _, err := b.Lock(ctx, project, stack, me); return err }())
	if le.Stale || !strings.Contains(le.Error(), "host "+elsewhere.Host) {
		t.Fatalf("a holder of another host: %v (stale %v), want a live lock naming its host", le, le.Stale)
	}
	if err := b.ForceUnlock(ctx, project, stack); err != nil {
		t.Fatal(err)
	}
	l, err = b.Lock(ctx, project, stack, me)
	if err != nil {
		t.Fatalf("Lock after ForceUnlock: %v", err)
	}
	l.Unlock()
}

// checkInterrupted fails unless the newest history entry of project ("",
// the stack's own lock) records pid's run as interrupted.
func checkInterrupted(t *testing.T, b backend.Store, project string, pid int) {
	t.Helper()
	hist, err := b.History(context.Background(), stack, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range hist {
		if e.Project != project {
			continue
		}
		if e.Result != backend.Interrupted || e.Kind != "update" || !strings.Contains(e.Message, fmt.Sprintf("pid %d", pid)) {
			t.Fatalf("newest history entry of %q = %+v, want an interrupted update of pid %d", project, e, pid)
		}
		return
	}
	t.Fatalf("no history entry of %q records the interrupted run: %+v", project, hist)
}

// testLockTakeoverRace: of many takers racing for a dead holder's lock,
// exactly one gets it and the dead run is recorded once.
func testLockTakeoverRace(t *testing.T, b backend.Store) {
	ctx := context.Background()
	me := backend.CurrentLockInfo("runner up")
	for round := 0; round < 5; round++ {
		gone := me
		gone.ProcessStart = fmt.Sprintf("gone-%d", round)
		if _, err := b.Lock(ctx, project, stack, gone); err != nil {
			t.Fatal(err)
		}
		const racers = 16
		var wg sync.WaitGroup
		var mu sync.Mutex
		var won []backend.Lock
		for i := 0; i < racers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner up"))
				var le *backend.LockedError
				if err != nil && !errors.As(err, &le) {
					t.Errorf("a racer: %v, want the lock or a *backend.LockedError", err)
				}
				if err != nil {
					return
				}
				mu.Lock()
				won = append(won, l)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if len(won) != 1 {
			t.Fatalf("round %d: %d of %d racers took the dead holder's lock, want exactly 1", round, len(won), racers)
		}
		if err := won[0].Unlock(); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := b.History(ctx, stack, project)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 5 {
		t.Fatalf("%d history entries after 5 takeovers, want 5: %+v", len(hist), hist)
	}
}
