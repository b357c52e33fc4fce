package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrations are the schema's versions, in order: migrations[i] brings
// version i to i+1. A released step is never edited; a change is a new
// step.
var migrations = []string{
	`CREATE TABLE runner_snapshots (
		stack text NOT NULL, project text NOT NULL,
		data bytea NOT NULL, sha256 text NOT NULL,
		updated timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (stack, project));
	CREATE TABLE runner_journal (
		stack text NOT NULL, project text NOT NULL, op_id text NOT NULL, seq bigint NOT NULL,
		line bytea NOT NULL,
		PRIMARY KEY (stack, project, op_id, seq));
	CREATE TABLE runner_kept (
		id bigserial PRIMARY KEY, stack text NOT NULL, project text NOT NULL,
		kind text NOT NULL, data bytea NOT NULL, kept timestamptz NOT NULL DEFAULT now());
	CREATE INDEX runner_kept_by_project ON runner_kept (stack, project, id);
	CREATE TABLE runner_history (
		id bigserial PRIMARY KEY, stack text NOT NULL, project text NOT NULL, entry jsonb NOT NULL);
	CREATE INDEX runner_history_by_stack ON runner_history (stack, id);
	CREATE TABLE runner_tags (
		stack text NOT NULL, key text NOT NULL, value text NOT NULL,
		PRIMARY KEY (stack, key));
	CREATE TABLE runner_locks (
		stack text NOT NULL, project text NOT NULL,
		lock_id text NOT NULL, lock_key bigint NOT NULL, backend_pid int NOT NULL,
		holder jsonb NOT NULL, since timestamptz NOT NULL,
		PRIMARY KEY (stack, project));
	CREATE FUNCTION runner_fence(p_stack text, p_project text, p_lock_id text) RETURNS boolean
	LANGUAGE plpgsql AS $$
	BEGIN
		IF NOT EXISTS (SELECT 1 FROM runner_locks l JOIN pg_locks k
			ON k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid AND k.objsubid = 1
			AND (k.classid::bigint << 32 | k.objid::bigint) = l.lock_key
			WHERE l.stack = p_stack AND l.project = p_project AND l.lock_id = p_lock_id) THEN
			RAISE EXCEPTION 'the lock of project % on stack % is no longer held by this operation', p_project, p_stack
				USING ERRCODE = 'RN001';
		END IF;
		RETURN true;
	END $$;`,
	`CREATE FUNCTION runner_check_base(p_stack text, p_project text, p_sha256 text) RETURNS boolean
	LANGUAGE plpgsql AS $$
	BEGIN
		IF coalesce((SELECT sha256 FROM runner_snapshots WHERE stack = p_stack AND project = p_project), '') <> p_sha256 THEN
			RAISE EXCEPTION 'the stored state of project % on stack % is no longer the one this operation began from', p_project, p_stack
				USING ERRCODE = 'RN001';
		END IF;
		RETURN true;
	END $$;`,
}

// fencedCode is the SQLSTATE runner_fence raises.
const fencedCode = "RN001"

// migrationKey is the advisory lock that serializes first uses.
const migrationKey = 0x72756e6e65720001

// newerSchemaError is a database whose tables a newer runner made.
type newerSchemaError struct{ have, know int }

func (e *newerSchemaError) Error() string {
	return fmt.Sprintf("its runner tables are at schema version %d, newer than this runner knows (%d)", e.have, e.know)
}

// migrate brings the tables to len(migrations), one transaction under an
// advisory lock so that processes starting together do it once. When the
// schema is current it costs one query.
func (s *Store) migrate(ctx context.Context) error {
	have, err := s.schemaVersion(ctx, s.pool)
	if err != nil || have == len(migrations) {
		return err
	}
	if have > len(migrations) {
		return &newerSchemaError{have, len(migrations)}
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationKey)); err != nil {
			return err
		}
		if s.schema != "" {
			if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{s.schema}.Sanitize()); err != nil {
				return fmt.Errorf("creating the schema %s: %w", s.schema, err)
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS runner_schema_migrations (
			version int PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("creating runner_schema_migrations: %w", err)
		}
		have, err := s.schemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		if have > len(migrations) {
			return &newerSchemaError{have, len(migrations)}
		}
		for v := have; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO runner_schema_migrations (version) VALUES ($1)`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// schemaVersion is the newest migration applied (0 when none, or no
// table of runner's yet).
func (s *Store) schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM runner_schema_migrations`).Scan(&v)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	return v, nil
}
