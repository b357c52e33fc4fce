package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Load returns the (project, stack) snapshot with its secrets decrypted by
// crypter, nil when the project has no state on the stack. A journal left
// by an interrupted operation is folded in (see the package documentation).
// A file that cannot be read, decoded or that fails state.Check is an
// error naming the file and the problem.
func (f *Folder) Load(ctx context.Context, project, stack string, crypter resource.Crypter) (*state.Snapshot, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	snap, hash, folded, err := readConsistent(ctx, p, crypter)
	if err != nil {
		return nil, busy(p, err)
	}
	if folded != nil {
		return folded, nil
	}
	if snap != nil {
		snap.SetOrigin(hash) // exactly the checkpoint file, which passed its checks
	}
	return snap, nil
}

// readAttempts bounds how often Load reads the snapshot and the journal
// again when an operation replaced the snapshot between the two reads.
const readAttempts = 5

// readConsistent reads the checkpoint and folds journal.jsonl into it. An
// operation running meanwhile may replace the snapshot between the two
// reads, so that the journal read belongs to a newer snapshot: then both
// are read again. Only complete journal lines are used.
func readConsistent(ctx context.Context, p paths, crypter resource.Crypter) (snap *state.Snapshot, hash string, folded *state.Snapshot, err error) {
	for attempt := 1; ; attempt++ {
		snap, hash, err = readSnapshot(ctx, p, crypter)
		if err != nil {
			return nil, "", nil, err
		}
		folded, err = readJournal(ctx, p, snap, hash, crypter)
		var other *otherBaseError
		if !errors.As(err, &other) || attempt == readAttempts {
			return snap, hash, folded, err
		}
	}
}

// otherBaseError is a journal that began from another snapshot than the
// one read.
type otherBaseError struct{ p paths }

func (e *otherBaseError) Error() string {
	return fmt.Sprintf("reading the journal %s: it began from another version of %s than the one on disk; move the journal away to use the snapshot as it is", e.p.journal, e.p.snapshot)
}

// busy explains a state that cannot be read while an operation holds the
// (project, stack) lock: the operation is writing it, so the error is a
// *LockedError naming the holder (wrapping the reading error too).
func busy(p paths, err error) error {
	if !fileExists(p.lock) {
		return err
	}
	locked, ok := lockedError(p).(*LockedError)
	host, _ := os.Hostname()
	if !ok || locked.Stale || (locked.Holder.PID == os.Getpid() && locked.Holder.Host == host) {
		return err
	}
	return fmt.Errorf("%w; it is being updated (%w)", locked, err)
}

// readSnapshot reads and checks the checkpoint; it returns nil when there is
// none, and the file's SHA-256.
func readSnapshot(ctx context.Context, p paths, crypter resource.Crypter) (*state.Snapshot, string, error) {
	data, plain, err := readCheckpointFile(p.snapshot)
	if err != nil || data == nil {
		return nil, "", err
	}
	snap, err := state.UnmarshalCheckpoint(ctx, plain, crypter)
	if err == nil {
		err = state.Check(snap, p.project, p.stack)
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the state file %s: %w%s", p.snapshot, err, restoreHint(p))
	}
	return snap, hashOf(data), nil
}

// readJournal folds a leftover journal into snap. It returns nil when there
// is no journal to fold (none, or one already committed).
func readJournal(ctx context.Context, p paths, snap *state.Snapshot, hash string, crypter resource.Crypter) (*state.Snapshot, error) {
	lines, err := journalLines(p)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	last := lines[len(lines)-1]
	if last.Kind == lineCommit && last.Snapshot == baseName(hash) {
		return nil, nil // committed; the crash came before the journal was removed
	}
	if lines[0].Kind != lineOpen || lines[0].Base != baseName(hash) {
		return nil, &otherBaseError{p: p}
	}
	folded, err := fold(ctx, snap, lines, crypter)
	if err != nil {
		return nil, fmt.Errorf("reading the journal %s: %w", p.journal, err)
	}
	// References the journal leaves dangling (a dependency deleted before
	// its dependent was replaced, or a record an older version did not
	// journal) are resolved as the engine's own final snapshot would.
	state.Repair(folded, p.project, p.stack)
	if err := state.Check(folded, p.project, p.stack); err != nil {
		return nil, fmt.Errorf("reading the journal %s: applied to %s: %w", p.journal, p.snapshot, err)
	}
	return folded, nil
}

// journalLines reads and parses journal.jsonl (nil when there is none).
func journalLines(p paths) ([]journalLine, error) {
	data, err := readOptional(p.journal)
	if err != nil || data == nil {
		return nil, err
	}
	lines, _, err := parseJournal(data)
	if err != nil {
		return nil, fmt.Errorf("reading the journal %s: %w; a crash only cuts the last line, so the file was edited or damaged and cannot be repaired automatically: "+
			"fix that line (one JSON object per line), or move the journal out of the way to go back to %s (the steps it recorded are then forgotten; `runner refresh` reads back what exists)",
			p.journal, err, p.snapshot)
	}
	return lines, nil
}

// sealJournal marks a leftover journal as folded into the snapshot whose
// SHA-256 is hash, before that snapshot replaces the one the journal
// applies to: a torn tail is cut and a commit line appended (fsynced). If
// the process dies before the snapshot is replaced, the journal still
// applies to the old one; after, Load sees it is committed.
func (f *Folder) sealJournal(p paths, hash string) error {
	data, err := readOptional(p.journal)
	if err != nil || data == nil {
		return err
	}
	_, valid, err := parseJournal(data)
	if err != nil {
		return fmt.Errorf("reading the journal %s: %w", p.journal, err)
	}
	line, _ := json.Marshal(journalLine{Kind: lineCommit, Snapshot: hash})
	sealed := append(data[:valid:valid], append(line, '\n')...)
	if _, err := f.fault(WriteJournalSeal, p.journal, len(sealed)); err != nil {
		return fmt.Errorf("sealing the journal %s: %w", p.journal, err)
	}
	if err := writeFileAtomic(p.journal, sealed); err != nil {
		return fmt.Errorf("sealing the journal %s: %w", p.journal, err)
	}
	return nil
}

// checkWritable refuses to replace a checkpoint that cannot be read or
// fails its checks (without decrypting its secrets). It returns the
// file's contents (nil when there is none). A file whose SHA-256 is
// trusted (the snapshot an open journal began from, which passed these
// checks then) is not checked again.
func (f *Folder) checkWritable(p paths, trusted string) ([]byte, error) {
	data, plain, err := readCheckpointFile(p.snapshot)
	if err != nil || data == nil {
		return nil, err
	}
	if trusted != "" && trusted == hashOf(data) {
		return data, nil
	}
	snap, err := state.UnmarshalCheckpointOpaque(plain)
	if err == nil {
		err = state.Check(snap, p.project, p.stack)
	}
	if err != nil {
		return nil, fmt.Errorf("refusing to write over the state file %s, which cannot be read (%w); repair or move it first", p.snapshot, err)
	}
	return data, nil
}

// restoreHint says how to put back a checkpoint that cannot be read: from
// the <checkpoint>.bak beside it (the version its last write replaced) when
// there is one, or from a copy in runner's history folder of the project.
func restoreHint(p paths) string {
	from := "COPY (a copy in " + p.history + ")"
	if fileExists(p.snapshot + ".bak") {
		from = p.snapshot + ".bak"
	}
	return fmt.Sprintf("; put back the version before its last write with `runner --stack %s stack import --project %s --file %s`, then `runner --stack %s refresh`",
		p.stack, p.project, from, p.stack)
}
