package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// This file holds what the backends outside this package (PostgreSQL, S3)
// share with the folder: the journal's lines and how they fold, so that a
// journal left by a crash reads the same on every backend.

// SnapshotHash is the SHA-256 (hex) of a stored snapshot's bytes, as a
// journal's open and commit lines name it ("" for nil: no snapshot).
func SnapshotHash(data []byte) string { return hashOf(data) }

// EncodeJournalEntry renders e as one journal line (JSON and a newline),
// its resources' secrets encrypted by c, exactly as journal.jsonl holds it.
func EncodeJournalEntry(ctx context.Context, e Entry, c resource.Crypter) ([]byte, error) {
	return encodeEntry(ctx, e, c)
}

// JournalOpenLine is the first line of a journal begun from the snapshot
// whose SHA-256 is hash ("" when there is none).
func JournalOpenLine(hash string) []byte {
	now := time.Now().UTC()
	line, _ := json.Marshal(journalLine{Kind: lineOpen, Base: baseName(hash), Time: &now})
	return append(line, '\n')
}

// FoldJournal folds a journal (its lines as stored; a torn last line is
// dropped) into snap, the stored snapshot whose SHA-256 is hash (""
// when none), as Load does: it returns nil when there is nothing to fold
// (no line, or a commit line naming hash). The folded snapshot is repaired
// (state.Repair) and checked. where names the journal in errors.
func FoldJournal(ctx context.Context, snap *state.Snapshot, hash string, journal []byte, where, project, stack string, c resource.Crypter) (*state.Snapshot, error) {
	lines, _, err := parseJournal(journal)
	if err != nil {
		return nil, fmt.Errorf("reading the journal %s: %w", where, err)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	if last := lines[len(lines)-1]; last.Kind == lineCommit && last.Snapshot == baseName(hash) {
		return nil, nil
	}
	if lines[0].Kind != lineOpen || lines[0].Base != baseName(hash) {
		return nil, fmt.Errorf("reading the journal %s: it began from another version of the snapshot than the one stored", where)
	}
	folded, err := fold(ctx, snap, lines, c)
	if err != nil {
		return nil, fmt.Errorf("reading the journal %s: %w", where, err)
	}
	state.Repair(folded, project, stack)
	if err := state.Check(folded, project, stack); err != nil {
		return nil, fmt.Errorf("reading the journal %s: applied to the stored snapshot: %w", where, err)
	}
	return folded, nil
}

// FoldForRepair folds a journal into snap as Repair does, without the
// consistency checks a repair is there to satisfy. It returns the folded
// snapshot (snap when there is nothing to fold) and one sentence saying
// what happened to the journal ("" when there was none).
func FoldForRepair(ctx context.Context, snap *state.Snapshot, hash string, journal []byte, where string, c resource.Crypter) (*state.Snapshot, string, error) {
	lines, _, err := parseJournal(journal)
	if err != nil {
		return nil, "", fmt.Errorf("reading the journal %s: %w", where, err)
	}
	if len(lines) == 0 {
		return snap, "", nil
	}
	last := lines[len(lines)-1]
	switch {
	case last.Kind == lineCommit && last.Snapshot == baseName(hash):
		return snap, fmt.Sprintf("set aside the journal %s, already committed", where), nil
	case lines[0].Kind != lineOpen || lines[0].Base != baseName(hash):
		return snap, fmt.Sprintf("set aside the journal %s, which began from another version of the snapshot", where), nil
	}
	folded, err := fold(ctx, snap, lines, c)
	if err != nil {
		return nil, "", fmt.Errorf("reading the journal %s: %w", where, err)
	}
	steps := 0
	for _, l := range lines {
		if EntryKind(l.Kind) == EntrySuccess {
			steps++
		}
	}
	return folded, fmt.Sprintf("folded the %d finished steps of the journal %s into the snapshot", steps, where), nil
}

// FillHolder completes a lock holder with this process's pid, host, user
// and the current time where they are missing, as Lock does.
func FillHolder(h LockInfo) LockInfo { return fillHolder(h) }
