package bucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// lockBody is a lock object: runner's holder, plus the fields of Pulumi's
// own lock files, so that the Pulumi CLI names runner as the holder.
type lockBody struct {
	backend.LockInfo
	Username  string    `json:"username"`
	Hostname  string    `json:"hostname"`
	Timestamp time.Time `json:"timestamp"`
}

// objLock is a held lock object, its lease renewed by beat.
type objLock struct {
	s    *Store
	key  string
	body []byte
	what string
	beat *backend.Heartbeat
	// previous is the dead holder this lock was taken over from.
	previous *backend.LockInfo

	// turn is held (a semaphore, left by a waiter whose context ends)
	// while the lock object is renewed or read back.
	turn chan struct{}
	etag string // of the lock object as this holder last wrote it
}

// take waits for the lock's turn, or for ctx to end.
func (l *objLock) take(ctx context.Context) error {
	select {
	case l.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *objLock) leave() { <-l.turn }

// Lock takes the (project, stack) lock: the object runner.json in Pulumi's
// lock folder of the project's stack, so that the Pulumi CLI refuses to
// run beside it; a lock file Pulumi wrote there refuses runner in turn.
func (s *Store) Lock(ctx context.Context, project, stack string, holder backend.LockInfo) (backend.Lock, error) {
	if err := names(project, stack); err != nil {
		return nil, err
	}
	key := projectLockKey(project, stack)
	l, err := s.take(ctx, key, holder, fmt.Sprintf("stack %s of project %s", stack, project), project, stack, func(o *Object) error {
		return s.lockedError(project, stack, key, o)
	})
	if err != nil {
		return nil, err
	}
	if err := s.checkPulumiLocks(ctx, project, stack); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// LockStack takes the stack-wide lock (runner's own; Pulumi has none).
func (s *Store) LockStack(ctx context.Context, stack string, holder backend.LockInfo) (backend.Lock, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	key := stackLockKey(stack)
	l, err := s.take(ctx, key, holder, "stack "+stack, "", stack, func(o *Object) error { return s.lockedError("", stack, key, o) })
	if err != nil {
		return nil, err
	}
	s.indexJournals(ctx, stack, l)
	return l, nil
}

// take creates the lock object key holding holder (If-None-Match: *), or
// returns locked(the object there). A lock whose holder is dead (a process
// of this host that no longer runs) is taken over by a write conditional
// on its ETag, so that of racing takers one wins, and the dead run is
// recorded as interrupted in the history of (project, stack).
func (s *Store) take(ctx context.Context, key string, holder backend.LockInfo, what, project, stack string, locked func(*Object) error) (*objLock, error) {
	if err := s.Probe(ctx); err != nil {
		return nil, err
	}
	me := backend.CurrentLockInfo(holder.Command)
	if holder.PID == 0 {
		holder.PID, holder.ProcessStart, holder.PIDNamespace = me.PID, me.ProcessStart, me.PIDNamespace
	}
	if holder.Host == "" {
		holder.Host = me.Host
	}
	if holder.User == "" {
		holder.User = me.User
	}
	if holder.Started.IsZero() {
		holder.Started = me.Started
	}
	lease := s.leaseFor()
	holder.LockID, holder.LeaseSeconds = newID(), lease.Seconds()
	body, err := json.Marshal(lockBody{LockInfo: holder, Username: holder.User, Hostname: holder.Host, Timestamp: holder.Started})
	if err != nil {
		return nil, fmt.Errorf("encoding the lock holder: %w", err)
	}
	cond := Cond{IfNoneMatch: true}
	var dead *backend.LockInfo
	for attempt := 0; ; attempt++ {
		etag, err := s.obj.Put(ctx, key, body, cond)
		if err == nil {
			if dead != nil {
				if err := s.addHistory(ctx, project, stack, backend.InterruptedRecord(*dead, holder, time.Now())); err != nil {
					return nil, err
				}
			}
			l := &objLock{s: s, key: key, body: body, what: what, etag: etag, previous: dead, turn: make(chan struct{}, 1)}
			l.beat = backend.StartHeartbeat(lease, l.renew)
			s.mu.Lock()
			s.held[key] = l
			s.mu.Unlock()
			return l, nil
		}
		if !errors.Is(err, ErrPrecondition) {
			return nil, fmt.Errorf("locking %s in %s: %w", what, s.obj.Describe(), err)
		}
		o, gerr := s.obj.Get(ctx, key)
		if errors.Is(gerr, ErrNotExist) && attempt < 3 {
			cond, dead = Cond{IfNoneMatch: true}, nil
			continue // released meanwhile
		}
		if gerr != nil {
			return nil, fmt.Errorf("locking %s in %s: reading its holder: %w", what, s.obj.Describe(), gerr)
		}
		if h := holderOf(o, key); h.Dead() && attempt < 3 && dead == nil {
			cond, dead = Cond{IfMatch: o.ETag}, &h
			continue
		}
		return nil, locked(o)
	}
}

// Previous returns the dead holder this lock was taken over from.
func (l *objLock) Previous() *backend.LockInfo { return l.previous }

// renew renews the lease: a write of the same holder conditional on the
// ETag this holder last wrote, given up when ctx ends. A refused condition
// means the lock was cleared or taken, unless the object still holds this
// holder's own body (a renewal given up on after the store had written
// it): then its ETag is taken as this holder's.
func (l *objLock) renew(ctx context.Context) error {
	if err := l.take(ctx); err != nil {
		return err
	}
	defer l.leave()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	etag, err := l.s.obj.Put(ctx, l.key, l.body, Cond{IfMatch: l.etag})
	if errors.Is(err, ErrPrecondition) {
		o, gerr := l.s.obj.Get(ctx, l.key)
		switch {
		case errors.Is(gerr, ErrNotExist) || gerr == nil && !bytes.Equal(o.Data, l.body):
			return backend.ErrLockLost
		case gerr != nil:
			return gerr
		}
		etag, err = o.ETag, nil
	}
	if err != nil {
		return err
	}
	l.etag = etag
	return nil
}

// stillHeld reads the lock object back: it is still this holder's when
// its ETag is the one this holder last wrote.
func (l *objLock) stillHeld(ctx context.Context) (bool, error) {
	if err := l.take(ctx); err != nil {
		return false, err
	}
	defer l.leave()
	o, err := l.s.obj.Get(ctx, l.key)
	if errors.Is(err, ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return o.ETag == l.etag, nil
}

// Lost is closed once the heartbeat finds the lock cleared or taken.
func (l *objLock) Lost() <-chan struct{} { return l.beat.Lost() }

// PauseHeartbeat stops renewing the lease (tests of expiry).
func (l *objLock) PauseHeartbeat() { l.beat.Pause() }

// Confirm proves that the lock is still this holder's (Heartbeat.Confirm):
// a renewal, when one is needed, is a write conditional on the ETag this
// holder last wrote.
func (l *objLock) Confirm(ctx context.Context) error {
	return l.beat.Confirm(ctx, func() string { return l.what })
}

// Unlock releases the lock: a DELETE conditional on the ETag this holder
// last wrote where the store honours If-Match on DELETE (Probe); where it
// does not, the lock is read back first and deleted only while it is this
// holder's.
func (l *objLock) Unlock() error {
	l.beat.Stop()
	l.s.mu.Lock()
	if l.s.held[l.key] == l {
		delete(l.s.held, l.key)
	}
	l.s.mu.Unlock()
	select {
	case <-l.beat.Lost():
		return fmt.Errorf("unlocking %s: the lock was cleared (or taken by another holder) meanwhile; leaving it", l.what)
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if l.s.condDelete {
		err := l.s.obj.Delete(ctx, l.key, l.etag)
		if errors.Is(err, ErrPrecondition) || errors.Is(err, ErrNotExist) {
			l.beat.MarkLost()
			return fmt.Errorf("unlocking %s: the lock was cleared (or taken by another holder) meanwhile; leaving it", l.what)
		}
		if err != nil {
			return fmt.Errorf("unlocking %s: %w", l.what, err)
		}
		return nil
	}
	held, err := l.stillHeld(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("unlocking %s: %w", l.what, err)
	case !held:
		l.beat.MarkLost()
		return fmt.Errorf("unlocking %s: the lock was cleared (or taken by another holder) meanwhile; leaving it", l.what)
	}
	if err := l.s.obj.Delete(ctx, l.key, l.etag); err != nil {
		return fmt.Errorf("unlocking %s: %w", l.what, err)
	}
	return nil
}

// holderOf decodes a lock object and judges its lease by the store's
// clock (the time of the answer against the object's last write).
func holderOf(o *Object, where string) backend.LockInfo {
	var b lockBody
	if err := json.Unmarshal(o.Data, &b); err != nil {
		return backend.LockInfo{Command: "an unreadable holder (" + where + ")"}
	}
	h := b.LockInfo
	if h.Host == "" && b.Hostname != "" { // a lock file the Pulumi CLI wrote
		h.Host, h.User, h.Started, h.Command = b.Hostname, b.Username, b.Timestamp, "the Pulumi CLI ("+b.Username+")"
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	h.SinceRenewal = now.Sub(o.Modified)
	h.Expired = h.LeaseSeconds > 0 && h.SinceRenewal > h.Lease()
	return h
}

func (s *Store) lockedError(project, stack, key string, o *Object) error {
	h := holderOf(o, s.obj.Describe()+"/"+key)
	return &backend.LockedError{Project: project, Stack: stack, StackWide: project == "", Holder: h, Stale: h.Stale(), File: s.obj.Describe() + "/" + key,
		Pulumi: project != "" && key != projectLockKey(project, stack)}
}

// checkPulumiLocks refuses a project whose Pulumi lock folder holds a lock
// file of the Pulumi CLI besides runner's.
func (s *Store) checkPulumiLocks(ctx context.Context, project, stack string) error {
	list, err := s.obj.List(ctx, pulumiLockDir(project, stack))
	if err != nil {
		return fmt.Errorf("locking stack %s of project %s: listing Pulumi's locks: %w", stack, project, err)
	}
	for _, o := range list {
		if o.Key == projectLockKey(project, stack) {
			continue
		}
		obj, err := s.obj.Get(ctx, o.Key)
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		return s.lockedError(project, stack, o.Key, obj)
	}
	return nil
}

// readHolder returns the holder of the lock object key, nil when none.
func (s *Store) readHolder(ctx context.Context, key string) (*backend.LockInfo, error) {
	o, err := s.obj.Get(ctx, key)
	if errors.Is(err, ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lock %s/%s: %w", s.obj.Describe(), key, err)
	}
	h := holderOf(o, s.obj.Describe()+"/"+key)
	return &h, nil
}

// LockHolder returns the holder of the (project, stack) lock.
func (s *Store) LockHolder(ctx context.Context, project, stack string) (*backend.LockInfo, error) {
	if err := names(project, stack); err != nil {
		return nil, err
	}
	return s.readHolder(ctx, projectLockKey(project, stack))
}

// StackLockHolder returns the holder of the stack-wide lock.
func (s *Store) StackLockHolder(ctx context.Context, stack string) (*backend.LockInfo, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	return s.readHolder(ctx, stackLockKey(stack))
}

// ForceUnlock clears the (project, stack) lock whoever holds it.
func (s *Store) ForceUnlock(ctx context.Context, project, stack string) error {
	if err := names(project, stack); err != nil {
		return err
	}
	if err := s.obj.Delete(ctx, projectLockKey(project, stack), ""); err != nil {
		return fmt.Errorf("clearing the lock of stack %s of project %s: %w", stack, project, err)
	}
	return nil
}

// ForceUnlockStack clears the stack-wide lock whoever holds it.
func (s *Store) ForceUnlockStack(ctx context.Context, stack string) error {
	if err := backend.CheckName("stack", stack); err != nil {
		return err
	}
	if err := s.obj.Delete(ctx, stackLockKey(stack), ""); err != nil {
		return fmt.Errorf("clearing the lock of stack %s: %w", stack, err)
	}
	return nil
}

// LockedProjects lists, sorted, the projects of stack whose lock is taken.
func (s *Store) LockedProjects(ctx context.Context, stack string) ([]string, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	list, err := s.obj.List(ctx, ".pulumi/locks/organization/")
	if err != nil {
		return nil, fmt.Errorf("listing the locks of stack %s: %w", stack, err)
	}
	var out []string
	for _, o := range list {
		parts := strings.Split(strings.TrimPrefix(o.Key, ".pulumi/locks/organization/"), "/")
		if len(parts) == 3 && parts[1] == stack && (len(out) == 0 || out[len(out)-1] != parts[0]) {
			out = append(out, parts[0])
		}
	}
	sort.Strings(out)
	return out, nil
}
