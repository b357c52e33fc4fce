package plugintest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Backend is an in-memory backend.Store. Snapshots are deep-copied in and
// out and kept decrypted. A journal keeps its entries; until it commits,
// Load folds them into the journal's base (backend.Fold), the steps that
// began and never ended as pending operations, as a backend does after a
// crash.
type Backend struct {
	mu         sync.Mutex
	stacks     map[string]*memStack // by project+"\x00"+stack
	stackLocks map[string]*backend.LockInfo
	tags       map[string]map[string]string
	history    map[string][]backend.HistoryEntry // by stack, oldest first
	gen        int64                             // writes so far, for StateDigest
	lease      time.Duration                     // 0: backend.LeaseFromEnv
	held       map[*backend.LockInfo]*memLock
}

var _ backend.Store = (*Backend)(nil)

// memStack is one (project, stack).
type memStack struct {
	snap    *state.Snapshot
	crypter resource.Crypter // what snap was last written with, for Export
	lock    *backend.LockInfo
	journal *memJournal // open or crashed journal, nil when none
	entries []backend.Entry
	gen     int64 // the backend's write count when this state was last written
}

func (s *memStack) hasState() bool { return s.snap != nil || s.journal != nil }

// NewBackend returns an empty in-memory backend.
func NewBackend() *Backend {
	return &Backend{
		stacks:     make(map[string]*memStack),
		stackLocks: make(map[string]*backend.LockInfo),
		tags:       make(map[string]map[string]string),
		history:    make(map[string][]backend.HistoryEntry),
	}
}

func key(project, stack string) string { return project + "\x00" + stack }

func (b *Backend) stack(project, stack string) *memStack {
	s := b.stacks[key(project, stack)]
	if s == nil {
		s = &memStack{}
		b.stacks[key(project, stack)] = s
	}
	return s
}

// Put sets the (project, stack) snapshot, as a test fixture (pending
// operations included).
func (b *Backend) Put(project, stack string, snap *state.Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	s.snap = CopySnapshot(snap)
	b.wrote(s)
}

// wrote records that the stored state of s changed.
func (b *Backend) wrote(s *memStack) {
	b.gen++
	s.gen = b.gen
}

// StateDigest names the stored (project, stack) state: "" when the project
// has none, otherwise a value that changes with every write.
func (b *Backend) StateDigest(ctx context.Context, project, stack string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stacks[key(project, stack)]
	if s == nil || !s.hasState() {
		return "", nil
	}
	return fmt.Sprintf("memory:%d", s.gen), nil
}

// Get returns a copy of the committed (project, stack) snapshot, nil when
// there is none.
func (b *Backend) Get(project, stack string) *state.Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return CopySnapshot(b.stack(project, stack).snap)
}

// Records returns the (project, stack) history records, oldest first.
func (b *Backend) Records(project, stack string) []backend.HistoryRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []backend.HistoryRecord
	for _, e := range b.history[stack] {
		if e.Project == project {
			out = append(out, e.HistoryRecord)
		}
	}
	return out
}

// Entries returns every journal entry written for (project, stack).
func (b *Backend) Entries(project, stack string) []backend.Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backend.Entry(nil), b.stack(project, stack).entries...)
}

// Load returns a copy of the snapshot, folding in an uncommitted journal.
func (b *Backend) Load(ctx context.Context, project, stack string, _ resource.Crypter) (*state.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.load(project, stack)
}

// load is Load with b.mu held.
func (b *Backend) load(project, stack string) (*state.Snapshot, error) {
	s := b.stack(project, stack)
	j := s.journal
	if j == nil {
		return CopySnapshot(s.snap), nil
	}
	snap, err := backend.Fold(j.base, j.entries)
	if err != nil {
		return nil, fmt.Errorf("reading the journal of project %s on stack %s: %w", project, stack, err)
	}
	snap = CopySnapshot(snap)
	state.Repair(snap, project, stack) // as the folder backend's Load does
	if err := state.Check(snap, project, stack); err != nil {
		return nil, fmt.Errorf("reading the journal of project %s on stack %s: %w", project, stack, err)
	}
	return snap, nil
}

// Lock takes the (project, stack) lock.
func (b *Backend) Lock(ctx context.Context, project, stack string, holder backend.LockInfo) (backend.Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	dead := b.takeOver(s.lock, project, stack, holder)
	if s.lock != nil && dead == nil {
		return nil, b.locked(project, stack, s.lock)
	}
	s.lock = completeHolder(holder)
	return b.take(&memLock{b: b, slot: &s.lock, held: s.lock, previous: dead, what: fmt.Sprintf("stack %s of project %s", stack, project)}), nil
}

// LockStack takes the lock of the whole stack.
func (b *Backend) LockStack(ctx context.Context, stack string, holder backend.LockInfo) (backend.Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	dead := b.takeOver(b.stackLocks[stack], "", stack, holder)
	if h := b.stackLocks[stack]; h != nil && dead == nil {
		return nil, b.locked("", stack, h)
	}
	h := completeHolder(holder)
	b.stackLocks[stack] = h
	return b.take(&memLock{b: b, stack: stack, held: h, previous: dead, what: "stack " + stack}), nil
}

// takeOver returns the holder of a lock (nil when free) when it is dead
// (backend.LockInfo.Dead), recording its run as interrupted in the
// history of stack (of project, "" for the stack's own lock), as every
// backend does; nil when the lock is free or held.
func (b *Backend) takeOver(held *backend.LockInfo, project, stack string, holder backend.LockInfo) *backend.LockInfo {
	if held == nil || !held.Dead() {
		return nil
	}
	b.dropped(held)
	rec := backend.InterruptedRecord(*held, holder, time.Now())
	b.history[stack] = append(b.history[stack], backend.HistoryEntry{Project: project, HistoryRecord: rec})
	return held
}

// completeHolder fills in this process where holder leaves it out, as the
// folder backend does.
func completeHolder(holder backend.LockInfo) *backend.LockInfo {
	me := backend.CurrentLockInfo(holder.Command)
	if holder.PID == 0 {
		holder.PID, holder.ProcessStart = me.PID, me.ProcessStart
	}
	if holder.Host == "" {
		holder.Host = me.Host
	}
	if holder.Started.IsZero() {
		holder.Started = me.Started
	}
	return &holder
}

// Unlock releases the lock; it fails when the lock was cleared, or cleared
// and taken by another holder, meanwhile.
func (l *memLock) Unlock() error {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	cur := l.b.stackLocks[l.stack]
	if l.slot != nil {
		cur = *l.slot
	}
	switch {
	case cur == nil:
		return fmt.Errorf("unlocking %s: the lock was already cleared", l.what)
	case cur != l.held:
		return fmt.Errorf("unlocking %s: the lock now belongs to another holder; leaving it", l.what)
	}
	delete(l.b.held, l.held)
	if l.slot != nil {
		*l.slot = nil
	} else {
		delete(l.b.stackLocks, l.stack)
	}
	return nil
}

// OpenJournal starts a journal whose steps apply to base.
func (b *Backend) OpenJournal(ctx context.Context, project, stack string, base *state.Snapshot, c resource.Crypter) (backend.Journal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	j := &memJournal{b: b, s: s, project: project, stack: stack, crypter: c, base: CopySnapshot(base), lock: s.lock}
	s.journal = j
	b.wrote(s)
	return j, nil
}

// memJournal keeps an operation's entries until it commits.
type memJournal struct {
	b              *Backend
	s              *memStack
	project, stack string
	crypter        resource.Crypter
	base           *state.Snapshot
	entries        []backend.Entry
	closed         bool
	lock           *backend.LockInfo // the lock held when the journal opened, fencing Commit
}

var errClosed = errors.New("the journal is already committed")

func (j *memJournal) Begin(ctx context.Context, e backend.Entry) error {
	e.Kind = backend.EntryBegin
	return j.write(ctx, e)
}

func (j *memJournal) End(ctx context.Context, e backend.Entry) error {
	if e.Kind != backend.EntrySuccess && e.Kind != backend.EntryFailure {
		return fmt.Errorf("recording the end of step %d: kind %q is neither %q nor %q", e.Seq, e.Kind, backend.EntrySuccess, backend.EntryFailure)
	}
	return j.write(ctx, e)
}

func (j *memJournal) write(ctx context.Context, e backend.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.b.mu.Lock()
	defer j.b.mu.Unlock()
	if j.closed {
		return errClosed
	}
	e = copyEntry(e)
	j.entries = append(j.entries, e)
	j.s.entries = append(j.s.entries, e)
	j.b.wrote(j.s)
	return nil
}

// Commit makes final the committed snapshot and records rec. A final
// snapshot that fails state.Check is not stored: the journal stays, as on
// the folder backend.
func (j *memJournal) Commit(ctx context.Context, final *state.Snapshot, rec backend.HistoryRecord) error {
	j.b.mu.Lock()
	defer j.b.mu.Unlock()
	if j.closed {
		return errClosed
	}
	j.closed = true
	if j.lock != nil && j.s.lock != j.lock {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, backend.ErrFenced)
	}
	if err := state.Check(final, j.project, j.stack); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, err)
	}
	unchanged := sameState(ctx, j.s.snap, final)
	j.s.snap, j.s.crypter = CopySnapshot(final), j.crypter
	j.b.wrote(j.s)
	if j.s.snap == nil {
		j.s.snap = &state.Snapshot{}
	}
	if backend.ProjectRecorded(rec, unchanged) {
		j.b.history[j.stack] = append(j.b.history[j.stack], backend.HistoryEntry{Project: j.project, HistoryRecord: rec})
	}
	if j.s.journal == j {
		j.s.journal = nil
	}
	return nil
}

func copyEntry(e backend.Entry) backend.Entry {
	e.Old, e.New = copyResource(e.Old), copyResource(e.New)
	return e
}
