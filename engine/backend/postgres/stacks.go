package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
)

// projectsSQL lists the (stack, project) pairs with state: a snapshot or
// a journal.
const projectsSQL = `SELECT stack, project FROM runner_snapshots UNION SELECT stack, project FROM runner_journal`

// ListStacks returns every stack with state, sorted, each with its
// projects sorted.
func (s *Store) ListStacks(ctx context.Context) ([]backend.StackInfo, error) {
	rows, err := s.pool.Query(ctx, `SELECT stack, project FROM (`+projectsSQL+`) AS p ORDER BY stack, project`)
	if err != nil {
		return nil, fmt.Errorf("listing the stacks in %s: %w", s.url, err)
	}
	pairs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Stack, Project string }])
	if err != nil {
		return nil, fmt.Errorf("listing the stacks in %s: %w", s.url, err)
	}
	var out []backend.StackInfo
	for _, p := range pairs {
		if len(out) == 0 || out[len(out)-1].Name != p.Stack {
			out = append(out, backend.StackInfo{Name: p.Stack})
		}
		last := &out[len(out)-1]
		last.Projects = append(last.Projects, p.Project)
	}
	return out, nil
}

// Projects lists, sorted, the projects with state on stack.
func (s *Store) Projects(ctx context.Context, stack string) ([]string, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT project FROM (`+projectsSQL+`) AS p WHERE stack = $1 ORDER BY 1`, stack)
	if err != nil {
		return nil, fmt.Errorf("listing the projects of stack %s in %s: %w", stack, s.url, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// StackExists reports whether anything of stack is stored: state, a
// lock, tags or history.
func (s *Store) StackExists(ctx context.Context, stack string) (bool, error) {
	if err := checkNames(stack, ""); err != nil {
		return false, err
	}
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runner_snapshots WHERE stack = $1)
		OR EXISTS (SELECT 1 FROM runner_journal WHERE stack = $1)
		OR EXISTS (SELECT 1 FROM runner_locks l WHERE stack = $1 AND `+liveSQL+`)
		OR EXISTS (SELECT 1 FROM runner_tags WHERE stack = $1)
		OR EXISTS (SELECT 1 FROM runner_history WHERE stack = $1)`, stack).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("looking for stack %s in %s: %w", stack, s.url, err)
	}
	return found, nil
}

// Summary describes the (project, stack) state without decrypting it.
func (s *Store) Summary(ctx context.Context, project, stack string) (backend.StackSummary, error) {
	sum := backend.StackSummary{Project: project, Stack: stack}
	if err := checkNames(stack, project); err != nil {
		return sum, err
	}
	st, err := s.read(ctx, stack, project)
	if err != nil {
		return sum, err
	}
	sum.Interrupted = len(st.journal) > 0
	if st.data == nil && !sum.Interrupted {
		return sum, fmt.Errorf("project %s has no state on stack %s: %w", project, stack, backend.ErrNotFound)
	}
	if st.data != nil {
		snap, err := state.UnmarshalOpaque(st.data)
		if err != nil {
			return sum, fmt.Errorf("reading the state %s: %w", s.where(stack, project), err)
		}
		sum.Resources, sum.Pending = len(snap.Resources), len(snap.PendingOperations)
	}
	hist, err := s.history(ctx, stack, project, 1)
	if err != nil {
		return sum, err
	}
	if len(hist) > 0 {
		sum.LastUpdate = &hist[0]
	}
	sum.Locked, err = s.liveHolder(ctx, stack, project)
	return sum, err
}

// StackSecrets returns, for every project with state on stack, what its
// state records of its secrets, without decrypting anything (one query
// for the whole stack).
func (s *Store) StackSecrets(ctx context.Context, stack string) ([]backend.StateSecrets, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT p.project, s.data,
		coalesce((SELECT string_agg(j.line, ''::bytea ORDER BY j.op_id, j.seq) FROM runner_journal j
			WHERE j.stack = $1 AND j.project = p.project), ''::bytea)
		FROM (SELECT project FROM (`+projectsSQL+`) AS x WHERE stack = $1) AS p
		LEFT JOIN runner_snapshots s ON s.stack = $1 AND s.project = p.project ORDER BY 1`, stack)
	if err != nil {
		return nil, fmt.Errorf("reading the states of stack %s in %s: %w", stack, s.url, err)
	}
	out := []backend.StateSecrets{}
	var project string
	var data, journal []byte
	_, err = pgx.ForEachRow(rows, []any{&project, &data, &journal}, func() error {
		out = append(out, backend.DescribeSecrets(project, s.where(stack, project), data, journal))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the states of stack %s in %s: %w", stack, s.url, err)
	}
	return out, nil
}

// History returns the operations recorded for stack, newest first; with a
// project, only that project's.
func (s *Store) History(ctx context.Context, stack, project string) ([]backend.HistoryEntry, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	return s.history(ctx, stack, project, -1)
}

// history reads at most limit entries (all when negative).
func (s *Store) history(ctx context.Context, stack, project string, limit int) ([]backend.HistoryEntry, error) {
	var lim *int
	if limit >= 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT entry FROM runner_history WHERE stack = $1 AND ($2 = '' OR project = $2)
		ORDER BY id DESC LIMIT $3`, stack, project, lim)
	if err != nil {
		return nil, fmt.Errorf("reading the history of stack %s in %s: %w", stack, s.url, err)
	}
	raw, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, fmt.Errorf("reading the history of stack %s in %s: %w", stack, s.url, err)
	}
	out := make([]backend.HistoryEntry, 0, len(raw))
	for _, r := range raw {
		var e backend.HistoryEntry
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("reading the history of stack %s in %s: %w", stack, s.url, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Tags returns the stack's tags (an empty map when none are set).
func (s *Store) Tags(ctx context.Context, stack string) (map[string]string, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT key, value FROM runner_tags WHERE stack = $1`, stack)
	if err != nil {
		return nil, fmt.Errorf("reading the tags of stack %s in %s: %w", stack, s.url, err)
	}
	tags := map[string]string{}
	var k, v string
	_, err = pgx.ForEachRow(rows, []any{&k, &v}, func() error { tags[k] = v; return nil })
	if err != nil {
		return nil, fmt.Errorf("reading the tags of stack %s in %s: %w", stack, s.url, err)
	}
	return tags, nil
}

// SetTag sets one tag of the stack.
func (s *Store) SetTag(ctx context.Context, stack, key, value string) error {
	if key == "" {
		return fmt.Errorf("setting a tag of stack %s: the tag name is empty", stack)
	}
	return s.editTag(ctx, stack, `INSERT INTO runner_tags (stack, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (stack, key) DO UPDATE SET value = excluded.value`, key, value)
}

// RemoveTag removes one tag of the stack (removing a missing tag succeeds).
func (s *Store) RemoveTag(ctx context.Context, stack, key string) error {
	return s.editTag(ctx, stack, `DELETE FROM runner_tags WHERE stack = $1 AND key = $2`, key)
}

func (s *Store) editTag(ctx context.Context, stack, sql string, args ...any) error {
	if err := checkNames(stack, ""); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, sql, append([]any{stack}, args...)...); err != nil {
		return fmt.Errorf("writing the tags of stack %s in %s: %w", stack, s.url, err)
	}
	return nil
}
