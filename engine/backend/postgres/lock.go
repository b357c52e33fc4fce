package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/runnerhq/runner/engine/backend"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// checkNames checks a stack's name and, unless empty, a project's, by the
// folder backend's rule.
func checkNames(stack, project string) error {
	if !nameRE.MatchString(stack) {
		return fmt.Errorf("stack name %q is not valid: use letters, digits, '_', '.' and '-', not starting with '.' or '-'", stack)
	}
	if project != "" && !nameRE.MatchString(project) {
		return fmt.Errorf("project name %q is not valid: use letters, digits, '_', '.' and '-', not starting with '.' or '-'", project)
	}
	return nil
}

// heldLock is a lock this process holds: the session (conn) holding the
// advisory lock, and the id of the runner_locks row naming the holder.
type heldLock struct {
	s              *Store
	stack, project string
	id             string
	key            int64
	previous       *backend.LockInfo // the holder whose run this taking interrupted
	appName        string            // the session's application_name while it holds the lock
	under          string            // the id of this process's lock of the whole stack, when it holds one
	beat           *backend.Heartbeat

	mu   sync.Mutex
	conn *pgxpool.Conn // nil once released
}

// lockKey is the advisory lock of (stack, project) ("" for the stack's
// own lock), positive so that pg_locks shows it as runner_fence reads it.
func (s *Store) lockKey(stack, project string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "runner\x00%s\x00%s\x00%s", s.schema, stack, project)
	return int64(h.Sum64() & 0x7fffffffffffffff)
}

// liveSQL is true when the lock row l is held: its session holds the
// advisory lock.
const liveSQL = `EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted
	AND k.pid = l.backend_pid AND k.objsubid = 1 AND (k.classid::bigint << 32 | k.objid::bigint) = l.lock_key)`

// Lock takes the (project, stack) lock, failing at once with a
// *backend.LockedError naming the holder when another session holds it.
func (s *Store) Lock(ctx context.Context, project, stack string, holder backend.LockInfo) (backend.Lock, error) {
	if err := checkNames(stack, project); err != nil {
		return nil, err
	}
	return s.take(ctx, stack, project, holder)
}

// LockStack takes the stack's own lock (project "" in runner_locks).
func (s *Store) LockStack(ctx context.Context, stack string, holder backend.LockInfo) (backend.Lock, error) {
	if err := checkNames(stack, ""); err != nil {
		return nil, err
	}
	return s.take(ctx, stack, "", holder)
}

// takeSQL tries the advisory lock and, when won, writes the holder's row
// (a project's lock is not tried when the stack lock of the same run, $7,
// is no longer the run's);
// it returns the row it replaced, left by a holder whose session ended
// without letting go (its run was interrupted), or null.
const takeSQL = `WITH got AS (SELECT CASE WHEN $7 = '' OR EXISTS (SELECT 1 FROM runner_locks
		WHERE stack = $1 AND project = '' AND lock_id = $7) THEN pg_try_advisory_lock($3) ELSE false END AS ok),
	prev AS (SELECT holder FROM runner_locks WHERE stack = $1 AND project = $2)
	INSERT INTO runner_locks AS l (stack, project, lock_id, lock_key, backend_pid, holder, since)
	SELECT $1, $2, $4, $3, pg_backend_pid(), $5::jsonb, now() FROM got
	WHERE CASE WHEN ok THEN set_config('application_name', $6, false) IS NOT NULL ELSE false END
	ON CONFLICT (stack, project) DO UPDATE SET lock_id = excluded.lock_id, lock_key = excluded.lock_key,
		backend_pid = excluded.backend_pid, holder = excluded.holder, since = excluded.since
	RETURNING CASE WHEN l.xmax <> 0 THEN (SELECT holder FROM prev) END`

// take takes the lock on a session kept for the lock's life. A holder
// that left its row (its session ended) is named as Previous and its run
// recorded as interrupted; a live session whose holder is a dead process
// of this host is ended and its lock taken over the same way. A refusal
// names the live holder.
func (s *Store) take(ctx context.Context, stack, project string, holder backend.LockInfo) (backend.Lock, error) {
	holder = backend.FillHolder(holder)
	l := &heldLock{s: s, stack: stack, project: project, id: newID(), key: s.lockKey(stack, project)}
	if sl := s.stackLock(stack, project); sl != nil {
		l.under = sl.id
	}
	holder.LockID = l.id
	// pg_stat_activity names the holder of the session that holds a lock.
	l.appName = fmt.Sprintf("%s pid %d on host %s", holder.Command, holder.PID, holder.Host)
	if len(l.appName) > 63 {
		l.appName = l.appName[:63]
	}
	data, err := json.Marshal(holder)
	if err != nil {
		return nil, fmt.Errorf("encoding the lock holder: %w", err)
	}
	for attempt := 0; ; attempt++ {
		won, err := l.try(ctx, data)
		if err != nil {
			return nil, s.lockErr(stack, project, err)
		}
		if won {
			break
		}
		if err := s.checkUnder(ctx, l); err != nil {
			return nil, s.lockErr(stack, project, err)
		}
		h, live, err := s.readHolder(ctx, stack, project)
		if err != nil {
			return nil, s.lockErr(stack, project, err)
		}
		if live && h.Dead() && attempt < 20 {
			if err := s.endSession(ctx, stack, project, h.LockID); err != nil {
				return nil, s.lockErr(stack, project, err)
			}
			continue
		}
		if live || attempt >= 20 {
			return nil, s.lockedError(stack, project, h)
		}
		time.Sleep(25 * time.Millisecond) // the winner's row is not committed yet, or it just let go
	}
	if l.previous != nil {
		if err := s.recordInterrupted(ctx, stack, project, *l.previous, holder); err != nil {
			return nil, errors.Join(s.lockErr(stack, project, err), l.Unlock())
		}
	}
	l.beat = backend.StartHeartbeat(heartbeatLease, l.check)
	s.remember(l)
	return l, nil
}

// try runs takeSQL on a session of its own, kept when the lock is won.
func (l *heldLock) try(ctx context.Context, holder []byte) (bool, error) {
	conn, err := l.s.locks.Acquire(ctx)
	if err != nil {
		return false, err
	}
	var prev []byte
	err = conn.QueryRow(ctx, takeSQL, l.stack, l.project, l.key, l.id, string(holder), l.appName, l.under).Scan(&prev)
	if errors.Is(err, pgx.ErrNoRows) {
		conn.Release()
		return false, nil
	}
	if err != nil {
		discard(conn) // the session may hold the lock without its row
		return false, err
	}
	l.conn = conn
	if prev != nil {
		var h backend.LockInfo
		if json.Unmarshal(prev, &h) == nil {
			l.previous = &h
		}
	}
	return true, nil
}

// heartbeatLease paces the check that a held lock's session still holds
// it (every third of it): a lock cleared by force is noticed within a few
// seconds (Lost).
const heartbeatLease = 9 * time.Second

// check is the heartbeat of a held lock: its session must still be open
// and its row still its own.
func (l *heldLock) check(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, heartbeatLease/3)
	defer cancel()
	var ours bool
	err := l.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runner_locks WHERE stack = $1 AND project = $2
		AND lock_id = $3 AND backend_pid = pg_backend_pid())`, l.stack, l.project, l.id).Scan(&ours)
	if err == nil && !ours || err != nil && l.conn.Conn().IsClosed() {
		return backend.ErrLockLost
	}
	return err
}

// Previous returns the holder whose run this lock's taking interrupted
// (its session ended, or it was a dead process of this host), nil when
// the lock was free.
func (l *heldLock) Previous() *backend.LockInfo { return l.previous }

// Lost is closed once the heartbeat finds the lock cleared or taken.
func (l *heldLock) Lost() <-chan struct{} { return l.beat.Lost() }

// Confirm proves that the lock is still this holder's
// (Heartbeat.Confirm): its session is open and its row its own.
func (l *heldLock) Confirm(ctx context.Context) error { return l.beat.Confirm(ctx, l.what) }

// recordInterrupted records the run of dead, whose lock by took over, in
// the stack's history.
func (s *Store) recordInterrupted(ctx context.Context, stack, project string, dead, by backend.LockInfo) error {
	entry, err := json.Marshal(backend.HistoryEntry{Project: project, HistoryRecord: backend.InterruptedRecord(dead, by, time.Now())})
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO runner_history (stack, project, entry) VALUES ($1, $2, $3::jsonb)`, stack, project, string(entry))
	return err
}

// endSession ends the session holding the lock of (stack, project) whose
// row is still lockID's: a dead holder's, taken over.
func (s *Store) endSession(ctx context.Context, stack, project, lockID string) error {
	_, err := s.pool.Exec(ctx, `SELECT pg_terminate_backend(l.backend_pid, 10000) FROM runner_locks l
		WHERE l.stack = $1 AND l.project = $2 AND l.lock_id = $3 AND `+liveSQL, stack, project, lockID)
	if err != nil {
		return fmt.Errorf("ending the session of the lock's dead holder: %w "+
			"(it takes the role that holds it, a superuser or a member of pg_signal_backend)", err)
	}
	return nil
}

func (s *Store) lockErr(stack, project string, err error) error {
	what := "stack " + stack
	if project != "" {
		what = fmt.Sprintf("stack %s of project %s", stack, project)
	}
	return fmt.Errorf("locking %s in %s: %w", what, s.url, err)
}

func (s *Store) lockedError(stack, project string, h *backend.LockInfo) error {
	e := &backend.LockedError{Project: project, Stack: stack, StackWide: project == "", File: "runner_locks in " + s.url}
	if h == nil {
		e.Holder.Command = "an unknown holder (no row in runner_locks)"
		return e
	}
	e.Holder = *h
	e.Stale = h.Stale()
	return e
}

// discard closes a pooled connection instead of returning it, ending its
// session (and any advisory lock it holds).
func discard(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = conn.Conn().Close(ctx)
	conn.Release()
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// readHolder reads the holder row of (stack, project) and whether its
// session still holds the lock (nil when there is no row).
func (s *Store) readHolder(ctx context.Context, stack, project string) (*backend.LockInfo, bool, error) {
	var data []byte
	var live bool
	err := s.pool.QueryRow(ctx, `SELECT l.holder, `+liveSQL+` FROM runner_locks l WHERE l.stack = $1 AND l.project = $2`,
		stack, project).Scan(&data, &live)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var h backend.LockInfo
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, false, fmt.Errorf("reading the lock holder of stack %s %s: %w", stack, project, err)
	}
	return &h, live, nil
}

// Unlock deletes the holder's row and releases the advisory lock. It
// fails when the lock is no longer this holder's (it was cleared by force,
// which ends the holding session).
func (l *heldLock) Unlock() error {
	if l.beat != nil {
		l.beat.Stop()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return errors.New("unlocking: the lock was already released")
	}
	conn := l.conn
	l.conn = nil
	l.s.forget(l)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var ours bool
	err := conn.QueryRow(ctx, `WITH d AS (DELETE FROM runner_locks WHERE stack = $1 AND project = $2 AND lock_id = $3
			AND backend_pid = pg_backend_pid() RETURNING 1)
		SELECT pg_advisory_unlock($4) AND EXISTS (SELECT 1 FROM d) AND set_config('application_name', 'runner', false) IS NOT NULL`, l.stack, l.project, l.id, l.key).Scan(&ours)
	if err != nil || !ours {
		discard(conn)
		return fmt.Errorf("unlocking %s: the lock was lost (cleared by force, or its connection ended), so another process may hold it now", l.what())
	}
	conn.Release()
	return nil
}

func (l *heldLock) what() string {
	if l.project == "" {
		return "stack " + l.stack
	}
	return fmt.Sprintf("stack %s of project %s", l.stack, l.project)
}

// checkUnder fails when l was refused because the stack lock it is taken
// under is no longer this run's (cleared by force): the run learns at
// once that it lost it (Lost), rather than at the next heartbeat, and
// takes no project's lock.
func (s *Store) checkUnder(ctx context.Context, l *heldLock) error {
	if l.under == "" {
		return nil
	}
	var ours bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runner_locks WHERE stack = $1 AND project = '' AND lock_id = $2)`,
		l.stack, l.under).Scan(&ours)
	if err != nil || ours {
		return err
	}
	if sl := s.stackLock(l.stack, l.project); sl != nil && sl.id == l.under && sl.beat != nil {
		sl.beat.MarkLost()
	}
	return fmt.Errorf("the lock of stack %s that this run holds was cleared: %w", l.stack, backend.ErrFenced)
}
