package backend

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// LeaseFromEnv returns the lease of locks: RUNNER_LOCK_LEASE (a Go
// duration, at least 300ms) when it is set and valid, else DefaultLease.
func LeaseFromEnv() time.Duration {
	if v := os.Getenv("RUNNER_LOCK_LEASE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 300*time.Millisecond {
			return d
		}
	}
	return DefaultLease
}

// SetLease sets the lease of the locks taken from now on (tests shorten
// it); their heartbeat renews them every third of it.
func (f *Folder) SetLease(d time.Duration) {
	f.leaseMu.Lock()
	defer f.leaseMu.Unlock()
	f.lease = d
}

func (f *Folder) leaseFor() time.Duration {
	f.leaseMu.Lock()
	defer f.leaseMu.Unlock()
	if f.lease > 0 {
		return f.lease
	}
	return LeaseFromEnv()
}

// Heartbeat keeps a lease alive: every third of the lease it calls renew,
// which returns errLockLost once the lock is no longer the holder's; then
// Lost is closed and the heartbeat ends. Other renewal errors are retried
// at the next beat (the lease outlives two failed beats). A renewal is
// given a context that Stop cancels, so that releasing the lock never
// waits on a slow store.
type Heartbeat struct {
	lost     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	lostOnce sync.Once
	stopOnce sync.Once
	pause    chan struct{}

	lease   time.Duration
	renew   func(context.Context) error
	ctx     context.Context // of the heartbeat's own renewals, cancelled by Stop
	cancel  context.CancelFunc
	mu      sync.Mutex
	renewed time.Time // when the last renewal that succeeded was sent
	// confirming lets one Confirm at a time renew (a semaphore a waiting
	// Confirm leaves when its context ends), so that steps starting
	// together after a pause make one request, not one each.
	confirming chan struct{}
}

// ErrLockLost is what a renewal returns when the lock is no longer the
// holder's.
var ErrLockLost = errors.New("the lock is no longer held by this holder")

// StartHeartbeat starts renewing a lease of length lease with renew, which
// must give up when its context ends.
func StartHeartbeat(lease time.Duration, renew func(context.Context) error) *Heartbeat {
	h := &Heartbeat{lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), pause: make(chan struct{}),
		lease: lease, renew: renew, renewed: time.Now(), confirming: make(chan struct{}, 1)}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(h.done)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-h.pause:
				<-h.stop
				return
			case <-t.C:
				if errors.Is(h.renewNow(h.ctx), ErrLockLost) {
					return
				}
			}
		}
	}()
	return h
}

// Lost is closed once the lock is found lost.
func (h *Heartbeat) Lost() <-chan struct{} { return h.lost }

// renewNow renews the lease once and, when the renewal succeeded, records
// when it was sent (the lease is counted from then: the store saw it
// later). A lock found lost is marked so (Lost).
func (h *Heartbeat) renewNow(ctx context.Context) error {
	sent := time.Now()
	err := h.renew(ctx)
	switch {
	case errors.Is(err, ErrLockLost):
		h.MarkLost()
	case err == nil:
		h.mu.Lock()
		if sent.After(h.renewed) {
			h.renewed = sent
		}
		h.mu.Unlock()
	}
	return err
}

// fresh reports whether the last renewal that succeeded was sent within
// half a lease: others judge the lock stale only after a whole lease
// without one, so the other half covers a step's start.
func (h *Heartbeat) fresh() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return time.Since(h.renewed) < h.lease/2
}

// Confirm proves, before a step calls its plugin, that the lock is still
// the holder's: it returns nil when the lease was renewed within half of
// it, or when a renewal made now succeeds. Otherwise no step may start: a
// lock found lost (cleared, or taken by another run once this one had
// stopped past its lease) is an error wrapping ErrLockLost, a renewal
// that could not be made (the store unreachable) one saying so; what
// names the lock in them (called only then: Confirm runs before every
// step). When ctx ends first (Ctrl-C) while a renewal is needed, Confirm
// returns at once with an error wrapping ctx's: the renewal under way is
// abandoned, and the lock is not proven.
func (h *Heartbeat) Confirm(ctx context.Context, what func() string) error {
	if err := h.ended(what); err != nil {
		return err
	}
	if h.fresh() {
		return nil
	}
	select {
	case h.confirming <- struct{}{}:
	case <-ctx.Done():
		return notConfirmed(ctx, what)
	}
	defer func() { <-h.confirming }()
	if err := h.ended(what); err != nil || h.fresh() {
		return err // lost, or renewed by the heartbeat or another Confirm meanwhile
	}
	err := h.renewNow(ctx)
	if ctx.Err() != nil && !errors.Is(err, ErrLockLost) {
		return notConfirmed(ctx, what)
	}
	if errors.Is(err, ErrLockLost) {
		return fmt.Errorf("the lock of %s was lost: its lease ran out without a renewal (the run was stopped, or could not reach the store) and the lock was cleared or taken since: %w", what(), ErrLockLost)
	}
	if err != nil {
		return fmt.Errorf("the lease of the lock of %s could not be renewed, so it cannot be proven that this run still holds it: %w", what(), err)
	}
	return nil
}

// notConfirmed is Confirm's error once ctx ended: it wraps ctx's error
// and its cause (a signal, for Ctrl-C).
func notConfirmed(ctx context.Context, what func() string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("the lock of %s was not confirmed: %w (%w)", what(), cause, err)
	}
	return fmt.Errorf("the lock of %s was not confirmed: %w", what(), err)
}

// ended returns an error wrapping ErrLockLost once the lock is lost or
// released (Stop).
func (h *Heartbeat) ended(what func() string) error {
	select {
	case <-h.lost:
		return fmt.Errorf("the lock of %s was lost (cleared by force, or taken by another run after this one stopped renewing it): %w", what(), ErrLockLost)
	case <-h.stop:
		return fmt.Errorf("the lock of %s was already released: %w", what(), ErrLockLost)
	default:
		return nil
	}
}

// MarkLost closes Lost.
func (h *Heartbeat) MarkLost() { h.lostOnce.Do(func() { close(h.lost) }) }

// Stop ends the heartbeat: a renewal under way is cancelled, and waited
// for.
func (h *Heartbeat) Stop() {
	h.stopOnce.Do(func() { close(h.stop); h.cancel() })
	<-h.done
}

// Pause stops renewing without releasing, as if the process were stopped.
func (h *Heartbeat) Pause() {
	select {
	case h.pause <- struct{}{}:
	case <-h.done:
	}
}

// renew renews the folder lock's lease: it checks that the lock file is
// still this holder's and sets its modification time, the time of the
// last renewal that others judge the lease by.
func (l *folderLock) renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := boundedfile.ReadFile(l.path, lockKind)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Equal(data, l.data) {
		return ErrLockLost
	}
	if err != nil {
		return err
	}
	now := time.Now()
	return os.Chtimes(l.path, now, now)
}

// stillHeld reports whether the lock file is still this holder's (a
// commit is fenced by it).
func (l *folderLock) stillHeld() bool {
	data, err := boundedfile.ReadFile(l.path, lockKind)
	return err == nil && bytes.Equal(data, l.data)
}

// Lost is closed once the heartbeat finds the lock cleared or taken.
func (l *folderLock) Lost() <-chan struct{} { return l.beat.Lost() }

// Confirm proves that the lock is still this holder's (Heartbeat.Confirm).
func (l *folderLock) Confirm(ctx context.Context) error { return l.beat.Confirm(ctx, l.name) }

func (l *folderLock) name() string { return l.path }

// PauseHeartbeat stops renewing the lease (tests of expiry).
func (l *folderLock) PauseHeartbeat() { l.beat.Pause() }

// judgeLease marks h expired when the lock file at path (its modification
// time is the last renewal) was not renewed within h's lease.
func judgeLease(h *LockInfo, path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	h.SinceRenewal = time.Since(st.ModTime())
	h.Expired = h.LeaseSeconds > 0 && h.SinceRenewal > h.Lease()
}

// fencedError is ErrFenced for the (project, stack) of p.
func fencedError(p paths) error {
	return fmt.Errorf("saving the state of project %s on stack %s: %w", p.project, p.stack, ErrFenced)
}

// newLockID returns a random name for one taking of a lock.
func newLockID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}
