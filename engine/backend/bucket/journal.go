package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
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
	return st, pending(ops), err
}

// marshal renders snap as the (project, stack) checkpoint.
func marshal(ctx context.Context, project, stack string, snap *state.Snapshot, c resource.Crypter) ([]byte, error) {
	export, err := state.Marshal(ctx, backend.BaseOrEmpty(snap), c)
	if err != nil {
		return nil, fmt.Errorf("saving the state of project %s on stack %s: %w", project, stack, err)
	}
	return backend.ToCheckpoint(project, stack, export)
}

// replace writes data as the (project, stack) checkpoint in place of cur,
// conditional on cur's ETag (a create when there is none): the journals of
// runs that did not commit are sealed first (a commit segment naming data),
// so that a kill at any point leaves the old checkpoint and its journal or
// the new checkpoint, then removed. The replaced checkpoint is kept as
// <stack>.json.bak, as Pulumi does.
func (s *Store) replace(ctx context.Context, project, stack string, cur seenState, data []byte, leftovers []*opJournal) (seenState, error) {
	hash := backend.SnapshotHash(data)
	for _, j := range leftovers {
		key := fmt.Sprintf("%s%s/%08d.jsonl", journalPrefix(project, stack), j.op, 99999999)
		if _, err := s.obj.Put(ctx, key, backend.CommitLine(hash), Cond{IfNoneMatch: true}); err != nil {
			return cur, fmt.Errorf("sealing the journal of project %s on stack %s: %w", project, stack, err)
		}
		j.keys = append(j.keys, key)
	}
	if cur.data != nil && sameButTime(cur.data, data) {
		return cur, s.retire(ctx, leftovers) // a no-op run: nothing to write
	}
	s.ensureMeta(ctx)
	cond := Cond{IfNoneMatch: true}
	if cur.data != nil {
		cond = Cond{IfMatch: cur.etag}
	}
	key, stored, err := s.storedForm(project, stack, data)
	if err != nil {
		return cur, err
	}
	if cur.data != nil {
		bak := cur.data
		if key != checkpointKey(project, stack) {
			bak, _ = gzipped(cur.data)
		}
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

// manifestTime is the manifest's time in a checkpoint (ToCheckpoint's
// indented form), which every commit sets anew.
var manifestTime = regexp.MustCompile(`"manifest": \{\s*"time": "[^"]*"`)

// sameButTime reports whether two checkpoints differ at most by their
// manifest's time: the state did not change.
func sameButTime(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if d := len(a) - len(b); d > 16 || d < -16 {
		return false
	}
	ia, ib := manifestTime.FindIndex(a), manifestTime.FindIndex(b)
	if ia == nil || ib == nil || ia[0] != ib[0] {
		return false
	}
	return bytes.Equal(a[:ia[0]], b[:ib[0]]) && bytes.Equal(a[ia[1]:], b[ib[1]:])
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
		if cur, err = s.replace(ctx, project, stack, cur, data, leftovers); err != nil {
			return nil, err
		}
	}
	j := &journal{s: s, project: project, stack: stack, crypter: c, cur: cur, op: newID(),
		queue: make(chan writeReq, maxBatch), exited: make(chan struct{})}
	s.mu.Lock()
	j.lock = s.held[projectLockKey(project, stack)]
	s.mu.Unlock()
	go j.writer()
	return j, nil
}

// journal is an operation's journal: segments written by one goroutine,
// one PUT for whatever entries are queued (group commit).
type journal struct {
	s              *Store
	project, stack string
	crypter        resource.Crypter
	cur            seenState // the checkpoint the operation began from
	op             string
	lock           *objLock // the lock held when the journal opened (nil: none)

	mu     sync.RWMutex
	closed bool
	queue  chan writeReq
	exited chan struct{}
	seq    int      // segments written
	keys   []string // and their keys
}

type writeReq struct {
	data []byte
	done chan error
}

const maxBatch = 1024

// lingerFor is how long a segment waits for more entries of concurrent
// steps before it is written.
const lingerFor = 2 * time.Millisecond

func (j *journal) segmentKey(seq int) string {
	return fmt.Sprintf("%s%s/%08d.jsonl", journalPrefix(j.project, j.stack), j.op, seq)
}

func (j *journal) writer() {
	defer close(j.exited)
	var failed error
	batch := make([]writeReq, 0, maxBatch)
	last := 0 // entries in the previous segment
	for req := range j.queue {
		batch = append(batch[:0], req)
		// Steps running side by side: wait a moment for more of their
		// entries, so that a segment carries many (one PUT each). A lone
		// step (the previous segment held one entry) does not wait.
		var linger <-chan time.Time
		if last > 1 {
			linger = time.After(lingerFor)
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-j.queue:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				if linger == nil {
					break drain
				}
				select {
				case r, ok := <-j.queue:
					if !ok {
						break drain
					}
					batch = append(batch, r)
				case <-linger:
					break drain
				}
			}
		}
		last = len(batch)
		err := failed
		if err == nil {
			var buf []byte
			if j.seq == 0 {
				buf = backend.JournalOpenLine(j.cur.hash)
			}
			for _, r := range batch {
				buf = append(buf, r.data...)
			}
			if err = j.put(buf); err != nil {
				failed = err
			}
		}
		for _, r := range batch {
			r.done <- err
		}
	}
}

// put writes the next segment.
func (j *journal) put(buf []byte) error {
	key := j.segmentKey(j.seq + 1)
	if _, err := j.s.obj.Put(context.Background(), key, buf, Cond{IfNoneMatch: true}); err != nil {
		return fmt.Errorf("writing the journal segment %s/%s: %w", j.s.obj.Describe(), key, err)
	}
	j.seq++
	j.keys = append(j.keys, key)
	return nil
}

var errClosed = errors.New("the journal is already committed")

// Begin records that a step is about to call its plugin; it returns once
// the segment holding it is stored.
func (j *journal) Begin(ctx context.Context, e backend.Entry) error {
	e.Kind = backend.EntryBegin
	if j.lock != nil && j.lock.beat.Expired() {
		return fmt.Errorf("starting step %d (%s) of project %s on stack %s: its lease ran out without a renewal (the run was stopped or could not reach the store), so another run may hold the lock: %w",
			e.Seq, e.Op, j.project, j.stack, backend.ErrLockLost)
	}
	return j.write(ctx, e)
}

// End records a step's outcome.
func (j *journal) End(ctx context.Context, e backend.Entry) error {
	if e.Kind != backend.EntrySuccess && e.Kind != backend.EntryFailure {
		return fmt.Errorf("recording the end of step %d: kind %q is neither %q nor %q", e.Seq, e.Kind, backend.EntrySuccess, backend.EntryFailure)
	}
	return j.write(ctx, e)
}

func (j *journal) write(ctx context.Context, e backend.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := backend.EncodeJournalEntry(ctx, e, j.crypter)
	if err != nil {
		return fmt.Errorf("journaling step %d (%s): %w", e.Seq, e.Op, err)
	}
	done := make(chan error, 1)
	j.mu.RLock()
	if j.closed {
		j.mu.RUnlock()
		return errClosed
	}
	j.queue <- writeReq{data: data, done: done}
	j.mu.RUnlock()
	return <-done
}

func (j *journal) stop() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return errClosed
	}
	j.closed = true
	close(j.queue)
	j.mu.Unlock()
	<-j.exited
	return nil
}

// Commit writes final as the checkpoint, fenced: the operation's lock must
// still be its own, and the checkpoint the one it began from (If-Match).
// The journal gets a commit segment first, so that a kill between the
// writes leaves a journal that Load knows is applied.
func (j *journal) Commit(ctx context.Context, final *state.Snapshot, rec backend.HistoryRecord) error {
	if err := j.stop(); err != nil {
		return err
	}
	if err := state.Check(final, j.project, j.stack); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, err)
	}
	data, err := marshal(ctx, j.project, j.stack, final, j.crypter)
	if err != nil {
		return err
	}
	if j.lock != nil {
		held, err := j.lock.stillHeld(ctx)
		if err != nil {
			return fmt.Errorf("saving the state of project %s on stack %s: checking its lock: %w", j.project, j.stack, err)
		}
		if !held {
			j.lock.beat.MarkLost()
			return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, backend.ErrFenced)
		}
	}
	var mine []*opJournal
	if j.seq > 0 {
		mine = []*opJournal{{op: j.op, keys: j.keys}}
	}
	st, err := j.s.replace(ctx, j.project, j.stack, j.cur, data, mine)
	if err != nil {
		return err
	}
	if err := j.s.addHistory(ctx, j.project, j.stack, rec); err != nil {
		return err
	}
	if final != nil {
		final.SetOrigin(st.hash)
	}
	return nil
}
