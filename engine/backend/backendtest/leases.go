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
	"github.com/runnerhq/runner/engine/state/statetest"
)

// testLockRace races 32 takers for one lock in each of 20 rounds: exactly
// one wins every round, every other one is told who holds it.
func testLockRace(t *testing.T, b backend.Store) {
	ctx := context.Background()
	const racers, rounds = 32, 20
	for round := range rounds {
		var (
			start = make(chan struct{})
			wg    sync.WaitGroup
			mu    sync.Mutex
			won   []backend.Lock
			other []error
		)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				l, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo(fmt.Sprintf("racer %d", i)))
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					won = append(won, l)
				} else {
					other = append(other, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(won) != 1 {
			t.Fatalf("round %d: %d of %d racers took the lock, want exactly 1", round, len(won), racers)
		}
		for _, err := range other {
			if le := lockedErr(t, err); le.Stale || !strings.HasPrefix(le.Holder.Command, "racer ") {
				t.Fatalf("round %d: a loser was told %v", round, le)
			}
		}
		if err := won[0].Unlock(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// leaser returns b as a backend.Leaser with a short lease, or skips the
// test when b's locks are no leases.
func leaser(t *testing.T, b backend.Store, lease time.Duration) {
	t.Helper()
	lb, ok := b.(backend.Leaser)
	if !ok {
		t.Skipf("%T has no leases (backend.Leaser): its locks end with the holder's session", b)
	}
	lb.SetLease(lease)
}

// testLeaseExpiry checks that a lock whose holder keeps renewing it stays
// live past its lease, and that once the holder stops renewing (as a
// stopped process) the lock is stale after the lease and not before, the
// refusal naming the last heartbeat.
func testLeaseExpiry(t *testing.T, b backend.Store) {
	const lease = 2 * time.Second
	leaser(t, b, lease)
	ctx := context.Background()
	l, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := l.(backend.HeartbeatPauser)
	if !ok {
		t.Fatalf("%T: a lease whose heartbeat cannot be paused (backend.HeartbeatPauser)", l)
	}
	other := func() *backend.LockedError {
		t.Helper()
		_, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner destroy"))
		return lockedErr(t, err)
	}
	time.Sleep(lease + lease/4)
	if le := other(); le.Stale {
		t.Fatalf("a lock renewed by its heartbeat is stale after its lease: %v", le)
	}
	p.PauseHeartbeat()
	paused := time.Now()
	if le := other(); le.Stale {
		t.Fatalf("a lock is stale at once when its heartbeat stops: %v", le)
	}
	for {
		le := other()
		if le.Stale {
			if time.Since(paused) < lease/2 {
				t.Fatalf("stale %s after the heartbeat stopped, before the lease of %s", time.Since(paused), lease)
			}
			if !strings.Contains(le.Error(), "last heartbeat") || !strings.Contains(le.Error(), "runner up") {
				t.Fatalf("the refusal does not name the holder and its last heartbeat: %v", le)
			}
			if h, err := b.LockHolder(ctx, project, stack); err != nil || h == nil || !h.Stale() {
				t.Fatalf("LockHolder of an expired lock = %+v, %v, want it stale", h, err)
			}
			break
		}
		if time.Since(paused) > 4*lease {
			t.Fatalf("the lock is still live %s after its heartbeat stopped (lease %s): %v", time.Since(paused), lease, le)
		}
		time.Sleep(lease / 8)
	}
	if err := b.ForceUnlock(ctx, project, stack); err != nil {
		t.Fatal(err)
	}
	l2, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatalf("Lock after clearing an expired lock: %v", err)
	}
	l2.Unlock()
}

// testLockLost clears a held lock by force and lets another take it: the
// first holder learns it lost the lock (Lost), cannot release the new
// holder's lock, and the stack-wide lock behaves the same.
func testLockLost(t *testing.T, b backend.Store) {
	if lb, ok := b.(backend.Leaser); ok {
		lb.SetLease(time.Second)
	}
	ctx := context.Background()
	for _, wide := range []bool{false, true} {
		take := func(cmd string) (backend.Lock, error) {
			if wide {
				return b.LockStack(ctx, stack, backend.CurrentLockInfo(cmd))
			}
			return b.Lock(ctx, project, stack, backend.CurrentLockInfo(cmd))
		}
		clear := func() error {
			if wide {
				return b.ForceUnlockStack(ctx, stack)
			}
			return b.ForceUnlock(ctx, project, stack)
		}
		l, err := take("runner up")
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.Lost():
			t.Fatal("Lost is closed while the lock is held")
		case <-time.After(1500 * time.Millisecond):
		}
		if err := clear(); err != nil {
			t.Fatal(err)
		}
		l2, err := take("runner refresh")
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.Lost():
		case <-time.After(10 * time.Second):
			t.Fatalf("stack-wide %v: the holder was not told within 10s that its lock was cleared and taken", wide)
		}
		if err := l.Unlock(); err == nil {
			t.Fatalf("stack-wide %v: the old holder released the new holder's lock", wide)
		}
		if err := l2.Unlock(); err != nil {
			t.Fatalf("stack-wide %v: %v", wide, err)
		}
	}
}

// testCommitFenced lets a holder journal a step, lose its lock to another
// run that commits, then commit: the commit is refused with ErrFenced and
// the other run's state stays.
func testCommitFenced(t *testing.T, b backend.Store) {
	ctx := context.Background()
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 1))
	l, j := openJournal(t, b, nil)
	r1 := thing(1)
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Op: "create", New: r1}); err != nil {
		t.Fatal(err)
	}
	if err := b.ForceUnlock(ctx, project, stack); err != nil {
		t.Fatal(err)
	}
	theirs := statetest.Snapshot(project, stack, 4)
	commit(t, b, project, stack, theirs)
	err := j.Commit(ctx, statetest.Snapshot(project, stack, 2), backend.HistoryRecord{Kind: "update", Result: "succeeded"})
	if !errors.Is(err, backend.ErrFenced) {
		t.Fatalf("the commit of a holder whose lock was taken = %v, want ErrFenced", err)
	}
	if got := load(t, b, project, stack); fmt.Sprint(urns(got)) != fmt.Sprint(urns(theirs)) {
		t.Fatalf("after a fenced commit the state is %v, want the other run's %v", urns(got), urns(theirs))
	}
	if err := l.Unlock(); err == nil {
		t.Fatal("the fenced holder's Unlock succeeded")
	}
	// The fenced commit's lock is free for the next run (the other run
	// released it), which commits normally.
	final := statetest.Snapshot(project, stack, 3)
	commit(t, b, project, stack, final)
	if got := load(t, b, project, stack); fmt.Sprint(urns(got)) != fmt.Sprint(urns(final)) {
		t.Fatalf("after the next run: %v, want %v", urns(got), urns(final))
	}
}

// testLeaseConfirm checks Confirm, which a step calls before its plugin
// call, on a project's lock and the stack's own: a held lock confirms; a
// holder stopped past its lease (its heartbeat paused) whose lock nobody
// touched confirms by renewing it, after which it is live again; once the
// lock was cleared after such a stop, Confirm fails wrapping ErrLockLost
// and the lock is marked lost.
func testLeaseConfirm(t *testing.T, b backend.Store) {
	const lease = time.Second
	leaser(t, b, lease)
	ctx := context.Background()
	for _, wide := range []bool{false, true} {
		take := func(cmd string) (backend.Lock, error) {
			if wide {
				return b.LockStack(ctx, stack, backend.CurrentLockInfo(cmd))
			}
			return b.Lock(ctx, project, stack, backend.CurrentLockInfo(cmd))
		}
		l, err := take("runner up")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Confirm(ctx); err != nil {
			t.Fatalf("stack-wide %v: Confirm of a held lock: %v", wide, err)
		}
		l.(backend.HeartbeatPauser).PauseHeartbeat()
		time.Sleep(lease + lease/4)
		interrupted, interrupt := context.WithCancel(ctx)
		interrupt()
		if err := l.Confirm(interrupted); !errors.Is(err, context.Canceled) {
			t.Fatalf("stack-wide %v: Confirm, a renewal needed, under an ended context = %v, want context.Canceled", wide, err)
		}
		if err := l.Confirm(ctx); err != nil {
			t.Fatalf("stack-wide %v: Confirm after a stop past the lease, the lock untouched: %v", wide, err)
		}
		if _, err := take("runner destroy"); lockedErr(t, err).Stale {
			t.Fatalf("stack-wide %v: a lock Confirm renewed is stale: %v", wide, err)
		}
		time.Sleep(lease + lease/4)
		clear := b.ForceUnlock(ctx, project, stack)
		if wide {
			clear = b.ForceUnlockStack(ctx, stack)
		}
		if clear != nil {
			t.Fatal(clear)
		}
		if err := l.Confirm(ctx); !errors.Is(err, backend.ErrLockLost) {
			t.Fatalf("stack-wide %v: Confirm of a lock cleared after its lease ran out = %v, want ErrLockLost", wide, err)
		}
		select {
		case <-l.Lost():
		default:
			t.Fatalf("stack-wide %v: a lock Confirm found cleared is not marked lost", wide)
		}
		_ = l.Unlock()
	}
}
