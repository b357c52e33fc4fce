package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
)

var _ backend.StackRecorder = (*Store)(nil)

// RecordStackRun records rec, a run across the projects of stack, in the
// stack's own history (a row naming no project).
func (s *Store) RecordStackRun(ctx context.Context, stack string, rec backend.HistoryRecord) error {
	if err := backend.CheckName("stack", stack); err != nil {
		return err
	}
	entry, err := json.Marshal(backend.HistoryEntry{HistoryRecord: rec})
	if err != nil {
		return fmt.Errorf("encoding the history record: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO runner_history (stack, project, entry) VALUES ($1, '', $2::jsonb)`, stack, string(entry)); err != nil {
		return fmt.Errorf("recording the history of stack %s in %s: %w", stack, s.url, err)
	}
	return nil
}

// seen is a snapshot as this process last read or wrote it.
type seen struct {
	data []byte
	hash string
}

// keepSeen keeps what is stored for (stack, project), so that a commit can
// tell a state left unchanged (unchanged).
func (s *Store) keepSeen(stack, project string, data []byte, hash string) {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	if s.seen == nil {
		s.seen = map[[2]string]seen{}
	}
	s.seen[[2]string{stack, project}] = seen{data: data, hash: hash}
}

// unchanged reports whether data, the snapshot a commit of j is about to
// store, holds the state stored when j began (backend.SameCheckpoint:
// secrets compared by their plaintexts, as every write encrypts them anew).
func (s *Store) unchanged(ctx context.Context, j *journal, data []byte, hash string, c resource.Crypter) bool {
	if j.base == "" {
		return false
	}
	if hash == j.base {
		return true
	}
	s.seenMu.Lock()
	st, ok := s.seen[[2]string{j.stack, j.project}]
	s.seenMu.Unlock()
	return ok && st.hash == j.base && backend.SameCheckpoint(ctx, st.data, data, c)
}

var _ backend.StackRunReader = (*Store)(nil)

// LastStackRun returns the newest record of the stack's own history.
func (s *Store) LastStackRun(ctx context.Context, stack string) (*backend.HistoryEntry, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT entry FROM runner_history WHERE stack = $1 AND project = '' ORDER BY id DESC LIMIT 1`, stack).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the history of stack %s in %s: %w", stack, s.url, err)
	}
	var e backend.HistoryEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("reading the history of stack %s in %s: %w", stack, s.url, err)
	}
	return &e, nil
}
