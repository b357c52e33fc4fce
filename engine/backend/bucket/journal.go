package bucket

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// current returns the checkpoint as stored: what this process last read or
// wrote when base names it (no request), else read afresh, with the
// journals of runs that did not commit.
func (s *Store) current(ctx context.Context, project, stack string, base *state.Snapshot) (seenState, []*opJournal, error) {
	if st, ok := s.recall(project, stack); ok && base != nil && base.Origin() != "" && base.Origin() == st.hash {
		return st, nil, nil
	}
	o, err := s.readCheckpoint(ctx, project, stack)
	if err != nil {
		return seenState{}, nil, err
	}
	var st seenState
	if o != nil {
		st = seenState{data: o.Data, etag: o.ETag, hash: backend.SnapshotHash(o.Data)}
	}
	ops, err := s.readJournals(ctx, project, stack)
	leftovers := pending(ops, st.hash)
	for _, j := range applied(ops, st.hash) {
		j.done = true // its segments are removed with the others
		leftovers = append(leftovers, j)
	}
	return st, leftovers, err
}

// marshal renders snap as the (project, stack) checkpoint, in one pass (as
// the folder does: state.MarshalCheckpoint).
func marshal(ctx context.Context, project, stack string, snap *state.Snapshot, c resource.Crypter) ([]byte, error) {
	data, err := state.MarshalCheckpoint(ctx, backend.BaseOrEmpty(snap), project, stack, c)
	if err != nil {
		return nil, fmt.Errorf("saving the state of project %s on stack %s: %w", project, stack, err)
	}
	return data, nil
}

// replace writes data as the (project, stack) checkpoint in place of cur,
// conditional on cur's ETag (a create when there is none): the journals of
// runs that did not commit are sealed first (a commit segment naming data),
// so that a kill at any point leaves the old checkpoint and its journal or
// the new checkpoint, then removed. The replaced checkpoint is kept as
// <stack>.json.bak, as Pulumi does. When data holds the state cur holds
// (backend.SameCheckpoint, secrets compared by their plaintexts with c),
// nothing is written.
func (s *Store) replace(ctx context.Context, project, stack string, cur seenState, data []byte, leftovers []*opJournal, c resource.Crypter) (seenState, error) {
	hash := backend.SnapshotHash(data)
	for _, j := range leftovers {
		if j.done {
			continue
		}
		key := fmt.Sprintf("%s%s/%08d.jsonl", journalPrefix(project, stack), j.op, 99999999)
		cond := Cond{IfNoneMatch: true}
		if j.info.Committed != "" {
			cond = Cond{} // sealed for a checkpoint that was never stored: sealed again, for data
		}
		if _, err := s.obj.Put(ctx, key, backend.CommitLine(hash), cond); err != nil {
			return cur, fmt.Errorf("sealing the journal of project %s on stack %s: %w", project, stack, err)
		}
		if !slices.Contains(j.keys, key) {
			j.keys = append(j.keys, key)
		}
	}
	if cur.data != nil && backend.SameCheckpoint(ctx, cur.data, data, c) {
		return cur, s.retire(ctx, leftovers) // a no-op run: nothing to write
	}
	s.ensureMeta(ctx)
	cond := Cond{IfNoneMatch: true}
	if cur.data != nil {
		cond = Cond{IfMatch: cur.etag}
	}
	key, stored, ext, err := s.storedForm(project, stack, data)
	if err != nil {
		return cur, err
	}
	if cur.data != nil {
		bak, _ := backend.Compress(ext, cur.data)
		if _, err := s.obj.Put(ctx, key+".bak", bak, Cond{}); err != nil {
			return cur, fmt.Errorf("keeping the state of project %s on stack %s: %w", project, stack, err)
		}
	}
	etag, err := s.obj.Put(ctx, key, stored, cond)
	if errors.Is(err, ErrPrecondition) {
		return cur, fmt.Errorf("saving the state of project %s on stack %s: it was changed by another writer since this run read it: %w", project, stack, backend.ErrFenced)
	}
	if err != nil {
		return cur, fmt.Errorf("saving the state of project %s on stack %s in %s: %w", project, stack, s.obj.Describe(), err)
	}
	st := seenState{data: data, etag: etag, hash: hash}
	s.remember(project, stack, st)
	return st, s.retire(ctx, leftovers)
}

// retire removes the segments of sealed journals.
func (s *Store) retire(ctx context.Context, ops []*opJournal) error {
	var keys []string
	for _, j := range ops {
		keys = append(keys, j.keys...)
	}
	if len(keys) == 0 {
		return nil
	}
	if err := s.obj.DeleteMany(ctx, keys); err != nil {
		return fmt.Errorf("removing committed journal segments: %w", err)
	}
	return nil
}

// OpenJournal starts the journal of an operation that begins from base,
// storing base first unless it is the stored checkpoint.
func (s *Store) OpenJournal(ctx context.Context, project, stack string, base *state.Snapshot, c resource.Crypter) (backend.Journal, error) {
	if err := names(project, stack); err != nil {
		return nil, err
	}
	cur, leftovers, err := s.current(ctx, project, stack, base)
	if err != nil {
		return nil, err
	}
	stored := cur.hash == "" && (base == nil || len(base.Resources) == 0 && len(base.PendingOperations) == 0) ||
		cur.hash != "" && base != nil && base.Origin() == cur.hash
	if len(leftovers) > 0 || !stored {
		data, err := marshal(ctx, project, stack, base, c)
		if err != nil {
			return nil, err
		}
		if cur, err = s.replace(ctx, project, stack, cur, data, leftovers, c); err != nil {
			return nil, err
		}
	}
	j := &journal{s: s, project: project, stack: stack, crypter: c, cur: cur, op: newID()}
	s.mu.Lock()
	j.lock = s.held[projectLockKey(project, stack)]
	s.mu.Unlock()
	j.LineWriter = backend.NewBatchingLineWriter(c, lingerFor, j.writeLines)
	return j, nil
}

// journal is an operation's journal: its entries are written as segments,
// one PUT for whatever entries are queued (group commit, LineWriter).
type journal struct {
	s              *Store
	project, stack string
	crypter        resource.Crypter
	cur            seenState // the checkpoint the operation began from
	op             string
	lock           *objLock // the lock held when the journal opened (nil: none)

	*backend.LineWriter // Begin and End

	seq  int      // segments written (by the writer)
	keys []string // and their keys
}

// lingerFor is how long a segment waits for more entries of steps running
// side by side before it is written.
const lingerFor = 2 * time.Millisecond

func (j *journal) segmentKey(seq int) string {
	return fmt.Sprintf("%s%s/%08d.jsonl", journalPrefix(j.project, j.stack), j.op, seq)
}

// writeLines writes one batch of entries as the next segment (the first
// begins with the line naming the checkpoint the operation began from).
func (j *journal) writeLines(lines [][]byte) error {
	var buf []byte
	if j.seq == 0 {
		buf = backend.JournalOpenLine(j.cur.hash)
	}
	for _, l := range lines {
		buf = append(buf, l...)
	}
	key := j.segmentKey(j.seq + 1)
	j.s.journaled(j.project, j.stack)
	if _, err := j.s.obj.Put(context.Background(), key, buf, Cond{IfNoneMatch: true}); err != nil {
		return fmt.Errorf("writing the journal segment %s/%s: %w", j.s.obj.Describe(), key, err)
	}
	j.seq++
	j.keys = append(j.keys, key)
	return nil
}

// Commit writes final as the checkpoint, fenced: the operation's lock must
// still be its own, and the checkpoint the one it began from (If-Match).
// The journal gets a commit segment first, so that a kill between the
// writes leaves a journal that Load knows is applied.
func (j *journal) Commit(ctx context.Context, final *state.Snapshot, rec backend.HistoryRecord) error {
	if err := j.Stop(); err != nil {
		return err
	}
	if err := state.Check(final, j.project, j.stack); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, err)
	}
	data, err := marshal(ctx, j.project, j.stack, final, j.crypter)
	if err != nil {
		return err
	}
	if err := j.confirmLock(ctx); err != nil {
		return err
	}
	var mine []*opJournal
	if j.seq > 0 {
		mine = []*opJournal{{op: j.op, keys: j.keys}}
	}
	st, err := j.s.replace(ctx, j.project, j.stack, j.cur, data, mine, j.crypter)
	if errors.Is(err, backend.ErrFenced) && j.lock != nil {
		j.lock.beat.MarkLost() // another run wrote the checkpoint: it held the lock
	}
	if err != nil {
		return err
	}
	unchanged := st.hash == j.cur.hash // replace wrote nothing: the state is as stored
	if backend.ProjectRecorded(rec, unchanged) {
		if err := j.s.addHistory(ctx, j.project, j.stack, rec); err != nil {
			return err
		}
	}
	if final != nil {
		final.SetOrigin(st.hash)
	}
	return nil
}

// confirmLock fences a commit by the operation's lock: it must be proven
// still this run's (Confirm: no request while its lease is fresh, else a
// renewal conditional on its ETag). The checkpoint's own write is
// conditional on the ETag it began from, so that a run whose lock was
// cleared and taken meanwhile cannot write over the other run's state.
func (j *journal) confirmLock(ctx context.Context) error {
	if j.lock == nil {
		return nil
	}
	err := j.lock.Confirm(ctx)
	if errors.Is(err, backend.ErrLockLost) {
		return fmt.Errorf("saving the state of project %s on stack %s: %w (%w)", j.project, j.stack, backend.ErrFenced, err)
	}
	if err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, err)
	}
	return nil
}
