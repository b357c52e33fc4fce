package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Import replaces the (project, stack) snapshot with data, a Pulumi
// deployment, once it passes backend.CheckImport, under the project's
// lock: the replaced snapshot and any leftover journal are kept, and an
// "import" entry is recorded, in one transaction.
func (s *Store) Import(ctx context.Context, project, stack string, data []byte, crypter resource.Crypter) error {
	if err := checkNames(stack, project); err != nil {
		return err
	}
	start := time.Now().UTC()
	snap, err := backend.CheckImport(ctx, project, stack, data, crypter)
	if err != nil {
		return err
	}
	return s.replace(ctx, project, stack, "runner stack import", data, backend.ImportRecord(start, snap))
}

// replace stores data as the snapshot under the project's lock (taken
// for command), setting aside the snapshot and journal there and recording
// rec, in one transaction.
func (s *Store) replace(ctx context.Context, project, stack, command string, data []byte, rec backend.HistoryRecord) error {
	lock, err := s.Lock(ctx, project, stack, backend.CurrentLockInfo(command))
	if err != nil {
		return fmt.Errorf("writing the state of project %s on stack %s: %w", project, stack, err)
	}
	defer lock.Unlock()
	l := lock.(*heldLock)
	entry, err := json.Marshal(backend.HistoryEntry{Project: project, HistoryRecord: rec})
	if err != nil {
		return fmt.Errorf("encoding the history record: %w", err)
	}
	b := &pgx.Batch{}
	fence(b, l)
	keepSnapshot(b, l)
	b.Queue(`INSERT INTO runner_kept (stack, project, kind, data)
		SELECT $1, $2, 'journal', string_agg(line, ''::bytea ORDER BY op_id, seq) FROM runner_journal
		WHERE stack = $1 AND project = $2 HAVING count(*) > 0`, stack, project)
	b.Queue(`DELETE FROM runner_journal WHERE stack = $1 AND project = $2`, stack, project)
	putSnapshot(b, l, data, backend.SnapshotHash(data))
	b.Queue(`INSERT INTO runner_history (stack, project, entry) VALUES ($1, $2, $3::jsonb)`, stack, project, string(entry))
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return s.saveErr(l, err)
	}
	return nil
}

// Repair makes the (project, stack) state loadable again under its lock
// (a leftover journal folded in, then backend.RepairSnapshot) and returns
// one sentence per change; no change, nothing written.
func (s *Store) Repair(ctx context.Context, project, stack string, crypter resource.Crypter) ([]string, error) {
	if err := checkNames(stack, project); err != nil {
		return nil, err
	}
	start := time.Now().UTC()
	st, err := s.read(ctx, stack, project)
	if err != nil {
		return nil, err
	}
	var snap *state.Snapshot
	if st.data != nil {
		if snap, err = state.Unmarshal(ctx, st.data, crypter); err != nil {
			return nil, fmt.Errorf("reading the state %s: %w; it cannot be repaired automatically: fix it by hand or import an export of the stack", s.where(stack, project), err)
		}
	}
	snap, folded, err := backend.FoldForRepair(ctx, snap, st.hash, st.journal, "of project "+project, crypter)
	if err != nil || snap == nil {
		return nil, err
	}
	var changes []string
	if folded != "" {
		changes = append(changes, folded)
	}
	more, err := backend.RepairSnapshot(snap, project, stack)
	if changes = append(changes, more...); err != nil || len(changes) == 0 {
		return nil, err
	}
	data, err := state.Marshal(ctx, snap, crypter)
	if err != nil {
		return nil, fmt.Errorf("saving the repaired state of project %s on stack %s: %w", project, stack, err)
	}
	return changes, s.replace(ctx, project, stack, "runner stack repair", data, backend.RepairRecord(start, changes))
}

// RemoveStack removes the state of project on stack under its lock,
// refusing while the snapshot holds resources other than the root stack
// unless force is set. When no project is left on the stack, its tags and
// history go too.
func (s *Store) RemoveStack(ctx context.Context, project, stack string, force bool) error {
	if err := checkNames(stack, project); err != nil {
		return err
	}
	lock, err := s.Lock(ctx, project, stack, backend.CurrentLockInfo("runner stack rm"))
	if err != nil {
		return fmt.Errorf("removing project %s from stack %s: %w", project, stack, err)
	}
	defer lock.Unlock()
	st, err := s.read(ctx, stack, project)
	if err != nil {
		return err
	}
	if st.data != nil && !force {
		snap, err := state.UnmarshalOpaque(st.data)
		if err != nil {
			return fmt.Errorf("removing project %s from stack %s: reading its state: %w; use force to remove it anyway", project, stack, err)
		}
		if n := backend.CountManaged(snap); n > 0 {
			return fmt.Errorf("removing project %s from stack %s: it still manages %d resources; destroy them first, or force the removal to forget them", project, stack, n)
		}
	}
	b := &pgx.Batch{}
	fence(b, lock.(*heldLock))
	for _, table := range []string{"runner_snapshots", "runner_journal", "runner_kept"} {
		b.Queue(`DELETE FROM `+table+` WHERE stack = $1 AND project = $2`, stack, project)
	}
	for _, table := range []string{"runner_tags", "runner_history"} {
		b.Queue(`DELETE FROM `+table+` WHERE stack = $1 AND NOT EXISTS (SELECT 1 FROM (`+projectsSQL+`) AS p WHERE p.stack = $1)`, stack)
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("removing project %s from stack %s in %s: %w", project, stack, s.url, err)
	}
	return nil
}
