package plugintest

import (
	"context"
	"fmt"
	"sync"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Backend is an in-memory backend.Backend. Snapshots are deep-copied in and
// out. A journal applies its entries to a working copy; until it commits,
// Load returns that copy with the steps that began and never ended as
// pending operations, as a backend does after a crash.
type Backend struct {
	mu     sync.Mutex
	stacks map[string]*memStack
}

var (
	_ backend.Backend     = (*Backend)(nil)
	_ backend.StackLocker = (*Backend)(nil)
)

// LockStack takes the lock of the whole stack.
func (b *Backend) LockStack(_ context.Context, stack string, holder backend.LockInfo) (backend.Lock, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack("", stack)
	if s.locked {
		return nil, &backend.LockedError{Stack: stack, StackWide: true, Holder: s.holder}
	}
	s.locked, s.holder = true, holder
	return memLock{b: b, s: s}, nil
}

type memStack struct {
	snap    *state.Snapshot
	locked  bool
	holder  backend.LockInfo
	history []backend.HistoryRecord
	journal *memJournal // open journal, nil when none
	entries []backend.Entry
	writes  int // how many times the stored state was written
}

// NewBackend returns an empty in-memory backend.
func NewBackend() *Backend { return &Backend{stacks: make(map[string]*memStack)} }

func (b *Backend) stack(project, stack string) *memStack {
	key := project + "\x00" + stack
	s := b.stacks[key]
	if s == nil {
		s = &memStack{}
		b.stacks[key] = s
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
	s.writes++
}

// Get returns a copy of the committed (project, stack) snapshot, nil when
// there is none.
func (b *Backend) Get(project, stack string) *state.Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return CopySnapshot(b.stack(project, stack).snap)
}

// History returns the (project, stack) history records.
func (b *Backend) History(project, stack string) []backend.HistoryRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backend.HistoryRecord(nil), b.stack(project, stack).history...)
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
	s := b.stack(project, stack)
	if j := s.journal; j != nil {
		return j.folded(), nil
	}
	return CopySnapshot(s.snap), nil
}

// StateDigest names the stored (project, stack) state: "" when the project
// was never deployed on the stack, otherwise a value that changes on every
// write (Put, journal entries, commits).
func (b *Backend) StateDigest(ctx context.Context, project, stack string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	if s.snap == nil && s.journal == nil {
		return "", nil
	}
	return fmt.Sprintf("memory:%d", s.writes), nil
}

// Lock takes the (project, stack) lock.
func (b *Backend) Lock(_ context.Context, project, stack string, holder backend.LockInfo) (backend.Lock, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	if s.locked {
		return nil, &backend.LockedError{Project: project, Stack: stack, Holder: s.holder}
	}
	s.locked, s.holder = true, holder
	return memLock{b: b, s: s}, nil
}

type memLock struct {
	b *Backend
	s *memStack
}

// Unlock releases the lock.
func (l memLock) Unlock() error {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	l.s.locked = false
	return nil
}

// OpenJournal starts a journal from base.
func (b *Backend) OpenJournal(_ context.Context, project, stack string, base *state.Snapshot, _ resource.Crypter) (backend.Journal, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	j := &memJournal{b: b, s: s, project: project, stack: stack, work: CopySnapshot(base), begun: map[int64]backend.Entry{}}
	if j.work == nil {
		j.work = &state.Snapshot{}
	}
	j.work.PendingOperations = nil
	s.journal = j
	s.writes++
	return j, nil
}

// memJournal applies entries to a working snapshot.
type memJournal struct {
	b              *Backend
	s              *memStack
	project, stack string
	work           *state.Snapshot
	begun          map[int64]backend.Entry
	order          []int64
}

func (j *memJournal) Begin(ctx context.Context, e backend.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.b.mu.Lock()
	defer j.b.mu.Unlock()
	e = copyEntry(e)
	j.s.entries = append(j.s.entries, e)
	j.s.writes++
	j.begun[e.Seq] = e
	j.order = append(j.order, e.Seq)
	return nil
}

func (j *memJournal) End(_ context.Context, e backend.Entry) error {
	j.b.mu.Lock()
	defer j.b.mu.Unlock()
	e = copyEntry(e)
	j.s.entries = append(j.s.entries, e)
	j.s.writes++
	delete(j.begun, e.Seq)
	if e.Kind == backend.EntrySuccess {
		j.apply(e)
	}
	return nil
}

// apply folds a successful step into the working snapshot.
func (j *memJournal) apply(e backend.Entry) {
	res := j.work.Resources
	switch {
	case e.Old != nil && e.New != nil && e.Op == "create-replacement":
		for i, r := range res {
			if r.URN == e.Old.URN && r.ID == e.Old.ID && !r.Delete {
				c := *r
				c.Delete = true
				res[i] = &c
			}
		}
		res = append(res, e.New)
	case e.Old != nil && e.New != nil:
		for i, r := range res {
			if r.URN == e.Old.URN && r.ID == e.Old.ID && r.Delete == e.Old.Delete {
				res[i] = e.New
			}
		}
	case e.New != nil:
		res = append(res, e.New)
	case e.Old != nil:
		out := res[:0]
		for _, r := range res {
			if !(r.URN == e.Old.URN && r.ID == e.Old.ID && r.Delete == e.Old.Delete) {
				out = append(out, r)
			}
		}
		res = out
	}
	j.work.Resources = res
}

// folded is the working snapshot with the unfinished steps as pending
// operations.
func (j *memJournal) folded() *state.Snapshot {
	snap := CopySnapshot(j.work)
	for _, seq := range j.order {
		e, ok := j.begun[seq]
		if !ok {
			continue
		}
		op := state.OperationUpdating
		r := e.New
		switch {
		case e.Op == "create" || e.Op == "create-replacement":
			op = state.OperationCreating
		case e.New == nil:
			op, r = state.OperationDeleting, e.Old
		}
		snap.PendingOperations = append(snap.PendingOperations, state.PendingOperation{Resource: copyResource(r), Type: op})
	}
	state.Repair(snap, j.project, j.stack) // as the folder backend's Load does
	return snap
}

func (j *memJournal) Commit(_ context.Context, final *state.Snapshot, rec backend.HistoryRecord) error {
	j.b.mu.Lock()
	defer j.b.mu.Unlock()
	j.s.snap = CopySnapshot(final)
	j.s.writes++
	j.s.history = append(j.s.history, rec)
	j.s.journal = nil
	return nil
}

func copyEntry(e backend.Entry) backend.Entry {
	e.Old, e.New = copyResource(e.Old), copyResource(e.New)
	return e
}

// CopySnapshot returns a deep copy of snap (nil for nil).
func CopySnapshot(snap *state.Snapshot) *state.Snapshot {
	if snap == nil {
		return nil
	}
	out := *snap
	out.Resources = make([]*state.Resource, len(snap.Resources))
	for i, r := range snap.Resources {
		out.Resources[i] = copyResource(r)
	}
	out.PendingOperations = make([]state.PendingOperation, len(snap.PendingOperations))
	for i, p := range snap.PendingOperations {
		out.PendingOperations[i] = state.PendingOperation{Resource: copyResource(p.Resource), Type: p.Type}
	}
	return &out
}

func copyResource(r *state.Resource) *state.Resource {
	if r == nil {
		return nil
	}
	c := *r
	c.Inputs = copyValue(map[string]any(r.Inputs)).(map[string]any)
	c.Outputs = copyValue(map[string]any(r.Outputs)).(map[string]any)
	c.Dependencies = append([]resource.URN(nil), r.Dependencies...)
	return &c
}

// copyValue returns a deep copy of a property value; a nil map stays nil.
func copyValue(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		m, isMap := x.(map[string]any)
		return m, isMap && m == nil
	})
}
