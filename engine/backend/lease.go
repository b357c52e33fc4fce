package backend

import (
	"bytes"
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
// at the next beat (the lease outlives two failed beats).
type Heartbeat struct {
	lost     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	lostOnce sync.Once
	stopOnce sync.Once
	pause    chan struct{}

	lease   time.Duration
	mu      sync.Mutex
	renewed time.Time // when the last renewal that succeeded was sent
}

// ErrLockLost is what a renewal returns when the lock is no longer the
// holder's.
var ErrLockLost = errors.New("the lock is no longer held by this holder")

// StartHeartbeat starts renewing a lease of length lease with renew.
func StartHeartbeat(lease time.Duration, renew func() error) *Heartbeat {
	h := &Heartbeat{lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), pause: make(chan struct{}),
		lease: lease, renewed: time.Now()}
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
				sent := time.Now()
				err := renew()
				if errors.Is(err, ErrLockLost) {
					h.MarkLost()
					return
				}
				if err == nil {
					h.mu.Lock()
					h.renewed = sent
					h.mu.Unlock()
				}
			}
		}
	}()
	return h
}

// Lost is closed once the lock is found lost.
func (h *Heartbeat) Lost() <-chan struct{} { return h.lost }

// Expired reports whether a whole lease has passed since the last renewal
// that succeeded (the process was stopped, or could not reach the store):
// others may then judge the lock stale and take it, so the holder must
// start no new step. It marks the lock lost when so.
func (h *Heartbeat) Expired() bool {
	h.mu.Lock()
	expired := time.Since(h.renewed) > h.lease
	h.mu.Unlock()
	if expired {
		h.MarkLost()
	}
	return expired
}

// MarkLost closes Lost.
func (h *Heartbeat) MarkLost() { h.lostOnce.Do(func() { close(h.lost) }) }

// Stop ends the heartbeat and waits for a renewal under way.
func (h *Heartbeat) Stop() {
	h.stopOnce.Do(func() { close(h.stop) })
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
func (l *folderLock) renew() error {
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
