package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// OpenJournal starts the journal of an operation that begins from base,
// the snapshot the journal's steps apply to. Unless base is the snapshot on
// disk (base.Origin names it: base is, unchanged, what Load returned) or
// both are empty, base is first saved as the snapshot: pending operations
// were resolved, a leftover journal was folded in, the resources were
// refreshed. It refuses to write over a snapshot that cannot be read.
func (f *Folder) OpenJournal(ctx context.Context, project, stack string, base *state.Snapshot, crypter resource.Crypter) (Journal, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	current, err := f.checkWritable(p, base.Origin())
	if err != nil {
		return nil, err
	}
	hash := hashOf(current)
	leftover, err := readOptional(p.journal)
	if err != nil {
		return nil, err
	}
	sealed := leftover != nil || !isStored(base, hash)
	if sealed {
		data, err := encodeSnapshot(ctx, p, base, crypter)
		if err != nil {
			return nil, fmt.Errorf("before the operation: %w", err)
		}
		if err := f.sealJournal(p, hashOf(data)); err != nil {
			return nil, err
		}
		if err := f.replaceSnapshot(p, current, data); err != nil {
			return nil, err
		}
		hash = hashOf(data)
	}
	j, err := startJournal(f, p, hash, crypter, sealed)
	if err != nil {
		return nil, err
	}
	if l, ok := f.held.Load(p.lock); ok {
		j.lock = l.(*folderLock)
	}
	return j, nil
}

// isStored reports whether base is the snapshot whose SHA-256 is hash
// ("" when there is none): base names it as its origin, or both are empty.
func isStored(base *state.Snapshot, hash string) bool {
	if hash == "" {
		return base == nil || (len(base.Resources) == 0 && len(base.PendingOperations) == 0)
	}
	return base.Origin() == hash
}

func baseOrEmpty(s *state.Snapshot) *state.Snapshot {
	if s == nil {
		return &state.Snapshot{Manifest: state.Manifest{Time: time.Now().UTC()}}
	}
	return s
}

// folderJournal is an open journal file with its single writer goroutine.
type folderJournal struct {
	f       *Folder
	p       paths
	base    string // the SHA-256 of the snapshot begun from ("" when none)
	crypter resource.Crypter
	lock    *folderLock // the lock held when the journal opened (nil: none), fencing Commit
	file    *os.File
	broken  atomic.Bool // a write failed: the file may end with a cut line

	*LineWriter // one write and one fsync per batch of lines

	bytes   atomic.Int64 // bytes of step entries written
	entries atomic.Int64 // step entries written
	syncs   atomic.Int64 // fsyncs of step entries
	buf     []byte       // the batch being written (the writer's)
}

// startJournal returns the journal of an operation that begins from the
// snapshot whose SHA-256 is hash. Its file is created by its first write
// (create): an operation that journals no step and changes nothing (a
// no-op up) writes no journal, and a kill before then leaves none, as
// there is nothing to fold. eager creates it at once (truncating the
// sealed journal OpenJournal left while it saved the base).
func startJournal(f *Folder, p paths, hash string, c resource.Crypter, eager bool) (*folderJournal, error) {
	j := &folderJournal{f: f, p: p, base: hash, crypter: c}
	if eager {
		if err := j.create(); err != nil {
			return nil, err
		}
	}
	j.LineWriter = NewLineWriter(c, j.writeLines)
	return j, nil
}

// create creates the journal file with its open line (naming the
// snapshot begun from), synced with its folder, unless it exists.
func (j *folderJournal) create() error {
	if j.file != nil {
		return nil
	}
	p := j.p
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("creating the journal %s: %w", p.journal, err)
	}
	file, err := os.OpenFile(p.journal, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("creating the journal %s: %w", p.journal, err)
	}
	now := time.Now().UTC()
	open, _ := json.Marshal(journalLine{Kind: lineOpen, Base: baseName(j.base), Time: &now})
	_, err = j.f.fault(WriteJournalOpen, p.journal, len(open)+1)
	if err == nil {
		if _, err = file.Write(append(open, '\n')); err == nil {
			err = file.Sync()
		}
	}
	if err == nil {
		err = syncDir(p.dir)
	}
	if err != nil {
		file.Close()
		return fmt.Errorf("creating the journal %s: %w", p.journal, err)
	}
	j.file = file
	return nil
}

// writeLines writes one batch of lines with one write and one fsync
// (the first creates the file). After a failure the file may end with a
// cut line (broken).
func (j *folderJournal) writeLines(lines [][]byte) error {
	if err := j.create(); err != nil {
		return err
	}
	j.buf = j.buf[:0]
	for _, l := range lines {
		j.buf = append(j.buf, l...)
	}
	if err := j.writeBatch(j.buf); err != nil {
		j.broken.Store(true)
		return fmt.Errorf("writing the journal %s: %w", j.p.journal, err)
	}
	j.syncs.Add(1)
	j.bytes.Add(int64(len(j.buf)))
	j.entries.Add(int64(len(lines)))
	return nil
}

// writeBatch appends buf to the journal file and fsyncs it.
func (j *folderJournal) writeBatch(buf []byte) error {
	if keep, err := j.f.fault(WriteJournalEntries, j.p.journal, len(buf)); err != nil {
		_, _ = j.file.Write(buf[:keep])
		return err
	}
	if _, err := j.file.Write(buf); err != nil {
		return err
	}
	return j.file.Sync()
}

// stop ends the writer after the queued entries are written.
func (j *folderJournal) stop() error { return j.Stop() }

// Commit writes final as the new snapshot (the previous one kept in the
// history folder), appends rec to the stack's history, removes the journal
// and records in final that it is now the stored snapshot (SetOrigin). A
// final snapshot that holds the state stored (SameCheckpoint) is not
// written, and recorded only when the run failed (ProjectRecorded): a kill
// before the journal is removed leaves a journal that folds into the same
// state. A final snapshot that fails state.Check is not written: the
// journal stays, and the next Load folds it.
func (j *folderJournal) Commit(ctx context.Context, final *state.Snapshot, rec HistoryRecord) error {
	if err := j.stop(); err != nil {
		return err
	}
	defer j.close()
	if err := state.Check(final, j.p.project, j.p.stack); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.p.project, j.p.stack, err)
	}
	data, err := encodeSnapshot(ctx, j.p, final, j.crypter)
	if err != nil {
		return err
	}
	if j.lock != nil && !j.lock.stillHeld() {
		j.lock.beat.MarkLost()
		return fencedError(j.p)
	}
	current, err := j.f.checkWritable(j.p, j.base)
	if err != nil {
		return err
	}
	unchanged := j.unchanged(ctx, current, data)
	stored := hashOf(current)
	if !unchanged { // a run that changed nothing writes nothing: its journal (if any) only goes
		if err := j.create(); err != nil {
			return err
		}
		if err := j.markCommitted(hashOf(data)); err != nil {
			return err
		}
		if err := j.f.replaceSnapshot(j.p, current, data); err != nil {
			return err
		}
		stored = hashOf(data)
	}
	if ProjectRecorded(rec, unchanged) {
		if err := j.f.appendHistory(j.p, rec); err != nil {
			return err
		}
	}
	if err := j.remove(); err != nil {
		return err
	}
	if final != nil {
		final.SetOrigin(stored) // an operation that begins from it needs no base write
	}
	return nil
}

// remove removes the committed journal file, if one was created.
func (j *folderJournal) remove() error {
	if j.file == nil {
		return nil
	}
	if _, err := j.f.fault(WriteJournalRemove, j.p.journal, 0); err != nil {
		return fmt.Errorf("removing the committed journal %s: %w", j.p.journal, err)
	}
	if err := os.Remove(j.p.journal); err != nil {
		return fmt.Errorf("removing the committed journal %s: %w", j.p.journal, err)
	}
	return syncDir(j.p.dir)
}

// close closes the journal file, if one was created.
func (j *folderJournal) close() {
	if j.file != nil {
		j.file.Close()
	}
}

// markCommitted appends the commit line naming the snapshot about to be
// written (hash). After a failed write the journal may end with a cut line,
// so it is rewritten whole instead (atomically, the cut line dropped), lest
// the commit line follow a line that cannot be read.
func (j *folderJournal) markCommitted(hash string) error {
	if j.broken.Load() {
		return j.f.sealJournal(j.p, hash)
	}
	line, _ := json.Marshal(journalLine{Kind: lineCommit, Snapshot: hash})
	line = append(line, '\n')
	if keep, err := j.f.fault(WriteJournalCommit, j.p.journal, len(line)); err != nil {
		_, _ = j.file.Write(line[:keep])
		return err
	}
	if _, err := j.file.Write(line); err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.p.journal, err)
	}
	if err := j.file.Sync(); err != nil {
		return fmt.Errorf("syncing the journal %s: %w", j.p.journal, err)
	}
	return nil
}

// unchanged reports whether data, the checkpoint file about to be written,
// holds the state current (the file there) holds (SameCheckpoint).
func (j *folderJournal) unchanged(ctx context.Context, current, data []byte) bool {
	if current == nil {
		return false
	}
	a, err := decompress(j.p.snapshot, current)
	if err != nil {
		return false
	}
	b, err := decompress(j.p.snapshot, data)
	return err == nil && SameCheckpoint(ctx, a, b, j.crypter)
}
