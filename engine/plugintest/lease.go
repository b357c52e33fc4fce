package plugintest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// SetLease sets the lease of the locks taken from now on. An in-memory
// lock is renewed as long as its holder is not paused (PauseHeartbeat).
func (b *Backend) SetLease(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lease = d
}

// judge returns a copy of the holder h with its lease judged (Expired when
// its lock's heartbeat was paused longer than the lease); nil for nil.
func (b *Backend) judge(h *backend.LockInfo) *backend.LockInfo {
	if h == nil {
		return nil
	}
	c := *h
	if l := b.held[h]; l != nil && !l.pausedAt.IsZero() {
		c.SinceRenewal = time.Since(l.pausedAt)
		c.Expired = c.LeaseSeconds > 0 && c.SinceRenewal > c.Lease()
	}
	return &c
}

// locked is the *backend.LockedError for the holder h.
func (b *Backend) locked(project, stack string, h *backend.LockInfo) *backend.LockedError {
	j := b.judge(h)
	return &backend.LockedError{Project: project, Stack: stack, StackWide: project == "", Holder: *j, Stale: j.Stale()}
}

// take records h as held by a new lock.
func (b *Backend) take(l *memLock) *memLock {
	lease := b.lease
	if lease == 0 {
		lease = backend.LeaseFromEnv()
	}
	l.held.LeaseSeconds = lease.Seconds()
	l.held.LockID = time.Now().Format(time.RFC3339Nano)
	l.lost = make(chan struct{})
	if b.held == nil {
		b.held = make(map[*backend.LockInfo]*memLock)
	}
	b.held[l.held] = l
	return l
}

// dropped tells the holder of h, cleared by force, that its lock is lost.
func (b *Backend) dropped(h *backend.LockInfo) {
	if l := b.held[h]; l != nil {
		l.lostOnce.Do(func() { close(l.lost) })
		delete(b.held, h)
	}
}

// memLock is a held lock: slot (a project's) or stack (a stack's own).
type memLock struct {
	b        *Backend
	slot     **backend.LockInfo
	stack    string
	held     *backend.LockInfo
	what     string
	lost     chan struct{}
	lostOnce sync.Once
	pausedAt time.Time
	previous *backend.LockInfo // the dead holder taken over
}

// Previous returns the dead holder the lock was taken over from.
func (l *memLock) Previous() *backend.LockInfo { return l.previous }

// Lost is closed when the lock is cleared by force.
func (l *memLock) Lost() <-chan struct{} { return l.lost }

// Confirm fails, wrapping backend.ErrLockLost, once the lock was cleared
// by force; a lock still held is renewed (a paused one counts its lease
// from now, unless ctx ended: a paused lock needs a renewal).
func (l *memLock) Confirm(ctx context.Context) error {
	select {
	case <-l.lost:
		return fmt.Errorf("the lock of %s was lost: %w", l.what, backend.ErrLockLost)
	default:
	}
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	if !l.pausedAt.IsZero() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("the lock of %s was not confirmed: %w", l.what, err)
		}
		l.pausedAt = time.Now()
	}
	return nil
}

// PauseHeartbeat stops renewing the lease, as if the holder were stopped.
func (l *memLock) PauseHeartbeat() {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	l.pausedAt = time.Now()
}
