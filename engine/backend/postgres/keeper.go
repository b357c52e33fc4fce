package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/engine/backend"
)

// LockHolder returns the holder of the (project, stack) lock, nil when no
// session holds it (a row left by a session that ended is not a holder).
func (s *Store) LockHolder(ctx context.Context, project, stack string) (*backend.LockInfo, error) {
	if err := checkNames(stack, project); err != nil {
		return nil, err
	}
	return s.liveHolder(ctx, stack, project)
}

// StackLockHolder returns the holder of the stack's own lock.
func (s *Store) StackLockHolder(ctx context.Context, stack string) (*backend.LockInfo, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	return s.liveHolder(ctx, stack, "")
}

func (s *Store) liveHolder(ctx context.Context, stack, project string) (*backend.LockInfo, error) {
	h, live, err := s.readHolder(ctx, stack, project)
	if err != nil {
		return nil, fmt.Errorf("reading the lock of stack %s in %s: %w", stack, s.url, err)
	}
	if !live {
		return nil, nil
	}
	return h, nil
}

// ForceUnlock clears the (project, stack) lock whoever holds it: the
// session holding it is ended (so that its holder can write nothing more:
// its every write checks the lock) and the holder's row deleted.
func (s *Store) ForceUnlock(ctx context.Context, project, stack string) error {
	if err := checkNames(stack, project); err != nil {
		return err
	}
	return s.clear(ctx, stack, project)
}

// ForceUnlockStack clears the stack's own lock whoever holds it.
func (s *Store) ForceUnlockStack(ctx context.Context, stack string) error {
	if err := checkNames(stack, ""); err != nil {
		return err
	}
	return s.clear(ctx, stack, "")
}

func (s *Store) clear(ctx context.Context, stack, project string) error {
	key := s.lockKey(stack, project)
	rows, err := s.pool.Query(ctx, `SELECT k.pid, pg_terminate_backend(k.pid, 10000) FROM pg_locks k
		WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
		AND (k.classid::bigint << 32 | k.objid::bigint) = $1 AND k.pid <> pg_backend_pid()`, key)
	if err != nil {
		return fmt.Errorf("clearing the lock of stack %s in %s: ending the session that holds it: %w "+
			"(it takes the role that holds it, a superuser or a member of pg_signal_backend)", stack, s.url, err)
	}
	type ended struct {
		PID   int32
		Ended bool
	}
	res, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ended])
	if err != nil {
		return fmt.Errorf("clearing the lock of stack %s in %s: %w", stack, s.url, err)
	}
	for _, e := range res {
		if !e.Ended {
			return fmt.Errorf("clearing the lock of stack %s in %s: the session %d holding it did not end within 10 s", stack, s.url, e.PID)
		}
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM runner_locks WHERE stack = $1 AND project = $2`, stack, project); err != nil {
		return fmt.Errorf("clearing the lock of stack %s in %s: %w", stack, s.url, err)
	}
	return nil
}

// LockedProjects lists, sorted, the projects of stack whose lock a
// session holds.
func (s *Store) LockedProjects(ctx context.Context, stack string) ([]string, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT l.project FROM runner_locks l
		WHERE l.stack = $1 AND l.project <> '' AND `+liveSQL+` ORDER BY 1`, stack)
	if err != nil {
		return nil, fmt.Errorf("listing the locks of stack %s in %s: %w", stack, s.url, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
