package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// journal is an operation's journal: rows of runner_journal under one
// op_id, each batch of lines (backend.LineWriter) inserted in one round
// trip.
type journal struct {
	*backend.LineWriter
	s              *Store
	stack, project string
	lock           *heldLock
	op             string
	base           string // SHA-256 of the stored snapshot begun from ("" when none)
	crypter        resource.Crypter
	rows           int64 // rows written (the writer's, then Commit's)
}

// OpenJournal starts the journal of an operation that begins from base,
// under the (project, stack) lock this process holds. Unless base is,
// by its Origin, the stored snapshot (which Load returned with no journal
// to fold), base is first stored, in one transaction with setting aside
// any leftover journal.
func (s *Store) OpenJournal(ctx context.Context, project, stack string, base *state.Snapshot, crypter resource.Crypter) (backend.Journal, error) {
	if err := checkNames(stack, project); err != nil {
		return nil, err
	}
	lock, err := s.holding(stack, project)
	if err != nil {
		return nil, fmt.Errorf("opening the journal: %w", err)
	}
	hash := ""
	if base != nil {
		hash = base.Origin()
	}
	if hash == "" {
		if hash, err = s.storeBase(ctx, lock, base, crypter); err != nil {
			return nil, err
		}
	}
	j := &journal{s: s, stack: stack, project: project, lock: lock, op: newID(), base: hash, crypter: crypter}
	j.LineWriter = backend.NewLineWriter(crypter, j.insert)
	return j, nil
}

// storeBase stores base as the snapshot unless it is what is stored (both
// empty) and no journal is left; it returns the stored snapshot's hash.
func (s *Store) storeBase(ctx context.Context, lock *heldLock, base *state.Snapshot, crypter resource.Crypter) (string, error) {
	var stored *string
	var leftover bool
	err := s.pool.QueryRow(ctx, `SELECT (SELECT sha256 FROM runner_snapshots WHERE stack = $1 AND project = $2),
		EXISTS (SELECT 1 FROM runner_journal WHERE stack = $1 AND project = $2)`, lock.stack, lock.project).Scan(&stored, &leftover)
	if err != nil {
		return "", s.saveErr(lock, err)
	}
	empty := base == nil || len(base.Resources) == 0 && len(base.PendingOperations) == 0
	if stored == nil && !leftover && empty {
		return "", nil
	}
	data, err := state.Marshal(ctx, orEmpty(base), crypter)
	if err != nil {
		return "", s.saveErr(lock, err)
	}
	hash := backend.SnapshotHash(data)
	b := &pgx.Batch{}
	fence(b, lock)
	keepSnapshot(b, lock)
	b.Queue(`INSERT INTO runner_kept (stack, project, kind, data)
		SELECT $1, $2, 'journal', string_agg(line, ''::bytea ORDER BY op_id, seq) FROM runner_journal
		WHERE stack = $1 AND project = $2 HAVING count(*) > 0`, lock.stack, lock.project)
	b.Queue(`DELETE FROM runner_journal WHERE stack = $1 AND project = $2`, lock.stack, lock.project)
	putSnapshot(b, lock, data, hash)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return "", s.saveErr(lock, err)
	}
	if base != nil {
		base.SetOrigin(hash)
	}
	return hash, nil
}

func (s *Store) saveErr(l *heldLock, err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == fencedCode {
		return fmt.Errorf("saving the state of project %s on stack %s in %s: %w", l.project, l.stack, s.url, backend.ErrFenced)
	}
	return fmt.Errorf("saving the state of project %s on stack %s in %s: %w", l.project, l.stack, s.url, err)
}

func orEmpty(s *state.Snapshot) *state.Snapshot {
	if s == nil {
		return &state.Snapshot{Manifest: state.Manifest{Time: time.Now().UTC()}}
	}
	return s
}

// fence queues the check that l is still held, which aborts the batch's
// transaction when it is not.
func fence(b *pgx.Batch, l *heldLock) {
	b.Queue(`SELECT runner_fence($1, $2, $3)`, l.stack, l.project, l.id)
}

// checkBase queues the check that the stored snapshot is still the one
// j began from (a base Load returned is trusted without a round trip, so
// it is checked with the journal's first write and the commit).
func checkBase(b *pgx.Batch, j *journal) {
	b.Queue(`SELECT runner_check_base($1, $2, $3)`, j.stack, j.project, j.base)
}

// keepSnapshot queues keeping the stored snapshot in runner_kept.
func keepSnapshot(b *pgx.Batch, l *heldLock) {
	b.Queue(`INSERT INTO runner_kept (stack, project, kind, data)
		SELECT stack, project, 'snapshot', data FROM runner_snapshots WHERE stack = $1 AND project = $2`, l.stack, l.project)
}

// putSnapshot queues storing data as the snapshot and pruning what is kept
// to the backend.HistoryKeep newest.
func putSnapshot(b *pgx.Batch, l *heldLock, data []byte, hash string) {
	b.Queue(`INSERT INTO runner_snapshots (stack, project, data, sha256) VALUES ($1, $2, $3, $4)
		ON CONFLICT (stack, project) DO UPDATE SET data = excluded.data, sha256 = excluded.sha256, updated = now()`,
		l.stack, l.project, data, hash)
	b.Queue(`DELETE FROM runner_kept WHERE stack = $1 AND project = $2 AND id NOT IN
		(SELECT id FROM runner_kept WHERE stack = $1 AND project = $2 ORDER BY id DESC LIMIT $3)`,
		l.stack, l.project, backend.HistoryKeep)
}

// insert writes one batch of lines, fenced by the lock.
func (j *journal) insert(batch [][]byte) error {
	seqs := make([]int64, 0, len(batch)+1)
	lines := make([][]byte, 0, len(batch)+1)
	if j.rows == 0 {
		seqs, lines = append(seqs, 0), append(lines, backend.JournalOpenLine(j.base))
	}
	for _, line := range batch {
		seqs, lines = append(seqs, j.rows+int64(len(seqs))), append(lines, line)
	}
	b := &pgx.Batch{}
	fence(b, j.lock)
	if j.rows == 0 {
		checkBase(b, j)
	}
	b.Queue(`INSERT INTO runner_journal (stack, project, op_id, seq, line)
		SELECT $1, $2, $3, s, l FROM unnest($4::bigint[], $5::bytea[]) AS t(s, l)`, j.stack, j.project, j.op, seqs, lines)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := j.s.pool.SendBatch(ctx, b).Close(); err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == fencedCode {
			return fmt.Errorf("writing the journal of project %s on stack %s: %w", j.project, j.stack, backend.ErrFenced)
		}
		return fmt.Errorf("writing the journal of project %s on stack %s in %s: %w", j.project, j.stack, j.s.url, err)
	}
	j.rows += int64(len(seqs))
	return nil
}

// Commit stores final as the snapshot (the previous one kept), records rec
// in the history and deletes the journal, in one transaction that first
// checks the lock: a holder that lost its lock commits nothing, and its
// journal stays for the next run to fold. A no-op (nothing journaled,
// final the state stored) stores nothing, and records the history only
// when it failed (backend.ProjectRecorded).
func (j *journal) Commit(ctx context.Context, final *state.Snapshot, rec backend.HistoryRecord) error {
	if err := j.Stop(); err != nil {
		return err
	}
	if err := state.Check(final, j.project, j.stack); err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, err)
	}
	data, err := state.Marshal(ctx, orEmpty(final), j.crypter)
	if err != nil {
		return fmt.Errorf("saving the state of project %s on stack %s: %w", j.project, j.stack, err)
	}
	entry, err := json.Marshal(backend.HistoryEntry{Project: j.project, HistoryRecord: rec})
	if err != nil {
		return fmt.Errorf("encoding the history record: %w", err)
	}
	hash := backend.SnapshotHash(data)
	unchanged := j.s.unchanged(ctx, j, data, hash, j.crypter)
	write, record := j.rows > 0 || !unchanged, backend.ProjectRecorded(rec, unchanged)
	if !write && !record {
		if final != nil {
			final.SetOrigin(j.base) // a no-op run: nothing to store
		}
		return nil
	}
	b := &pgx.Batch{}
	fence(b, j.lock)
	checkBase(b, j)
	if write {
		keepSnapshot(b, j.lock)
		putSnapshot(b, j.lock, data, hash)
		b.Queue(`DELETE FROM runner_journal WHERE stack = $1 AND project = $2`, j.stack, j.project)
	}
	if record {
		b.Queue(`INSERT INTO runner_history (stack, project, entry) VALUES ($1, $2, $3::jsonb)`, j.stack, j.project, string(entry))
	}
	if err := j.s.pool.SendBatch(ctx, b).Close(); err != nil {
		return j.s.saveErr(j.lock, err)
	}
	if !write {
		hash = j.base
	} else {
		j.s.keepSeen(j.stack, j.project, data, hash)
	}
	if final != nil {
		final.SetOrigin(hash)
	}
	return nil
}
