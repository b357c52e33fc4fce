package backend

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Repair makes the (project, stack) state loadable again, under its lock,
// as `pulumi state repair` does, and returns one sentence per change:
//   - a leftover journal is folded into the snapshot (and kept in the
//     history folder), or set aside when it began from another snapshot;
//   - dangling parent, provider and dependency references are resolved
//     and the resources put in dependency order (see state.Repair);
//   - pending operations are cleared (the user has checked the resources
//     they name).
//
// The snapshot read may fail its checks (that is what Repair is for), but
// it must decode. When nothing needs changing nothing is written and no
// change is returned. A state that is still inconsistent after the repair
// is not written: the error says why.
func (f *Folder) Repair(ctx context.Context, project, stack string, crypter resource.Crypter) ([]string, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	start := time.Now().UTC()
	lock, err := f.Lock(ctx, project, stack, CurrentLockInfo("runner stack repair"))
	if err != nil {
		return nil, fmt.Errorf("repairing project %s of stack %s: %w", project, stack, err)
	}
	defer lock.Unlock()
	snap, changes, err := f.readForRepair(ctx, p, crypter)
	if err != nil || snap == nil {
		return nil, err
	}
	more, err := RepairSnapshot(snap, project, stack)
	if changes = append(changes, more...); err != nil || len(changes) == 0 {
		return nil, err
	}
	if err := f.writeRepaired(ctx, p, snap, crypter); err != nil {
		return nil, err
	}
	return changes, f.appendHistory(p, RepairRecord(start, changes))
}

// RepairSnapshot mends snap in place, as `pulumi state repair` does, and
// returns one sentence per change: dangling parent, provider and
// dependency references are resolved and the resources put in dependency
// order (state.Repair), and pending operations are cleared (the user has
// checked the resources they name). A state still inconsistent afterwards
// is an error saying why.
func RepairSnapshot(snap *state.Snapshot, project, stack string) ([]string, error) {
	var changes []string
	for _, fix := range state.Repair(snap, project, stack) {
		changes = append(changes, fix.What)
	}
	for _, op := range snap.PendingOperations {
		if op.Resource != nil {
			changes = append(changes, fmt.Sprintf("cleared the pending operation %s %s (%s)", op.Type, op.Resource.Describe(), op.Resource.URN))
		}
	}
	snap.PendingOperations = nil
	if len(changes) == 0 {
		return nil, nil
	}
	if err := state.Check(snap, project, stack); err != nil {
		return nil, fmt.Errorf("repairing project %s of stack %s: the state is still not consistent after the repair, so nothing was written: %w", project, stack, err)
	}
	return changes, nil
}

// RepairRecord is the history record of a repair begun at start.
func RepairRecord(start time.Time, changes []string) HistoryRecord {
	return housekeeping("repair", start, fmt.Sprintf("%d changes", len(changes)))
}

// readForRepair reads the checkpoint without its consistency checks and
// folds a leftover journal into it. It returns nil when there is no state.
func (f *Folder) readForRepair(ctx context.Context, p paths, crypter resource.Crypter) (*state.Snapshot, []string, error) {
	data, plain, err := readCheckpointFile(p.snapshot)
	if err != nil {
		return nil, nil, err
	}
	var snap *state.Snapshot
	if data != nil {
		if snap, err = state.UnmarshalCheckpoint(ctx, plain, crypter); err != nil {
			return nil, nil, fmt.Errorf("reading the state file %s: %w; it cannot be repaired automatically: fix it by hand or import an export of the stack", p.snapshot, err)
		}
	}
	lines, err := journalLines(p)
	if err != nil || len(lines) == 0 {
		return snap, nil, err
	}
	hash := hashOf(data)
	last := lines[len(lines)-1]
	switch {
	case last.Kind == lineCommit && last.Snapshot == baseName(hash):
		return snap, []string{fmt.Sprintf("set aside the journal %s, already committed to %s", p.journal, p.snapshot)}, nil
	case lines[0].Kind != lineOpen || lines[0].Base != baseName(hash):
		return snap, []string{fmt.Sprintf("set aside the journal %s (kept in %s), which began from another version of %s", p.journal, p.history, p.snapshot)}, nil
	}
	folded, err := fold(ctx, snap, lines, crypter)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the journal %s: %w", p.journal, err)
	}
	steps := 0
	for _, l := range lines {
		if EntryKind(l.Kind) == EntrySuccess {
			steps++
		}
	}
	return folded, []string{fmt.Sprintf("folded the %d finished steps of the journal %s into %s", steps, p.journal, p.snapshot)}, nil
}

// writeRepaired writes snap as the snapshot, the previous one and any
// leftover journal kept in the history folder.
func (f *Folder) writeRepaired(ctx context.Context, p paths, snap *state.Snapshot, crypter resource.Crypter) error {
	data, err := encodeSnapshot(ctx, p, snap, crypter)
	if err != nil {
		return fmt.Errorf("repairing: %w", err)
	}
	// As OpenJournal does: the journal is sealed first, so that a crash at
	// any point leaves either the old snapshot with its journal or the
	// repaired one.
	if err := f.sealJournal(p, hashOf(data)); err != nil {
		return err
	}
	if err := f.overwriteSnapshot(p, data); err != nil {
		return err
	}
	return f.retireJournal(p)
}
