package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/postgres"
	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestSchemasKeepStatesApart: ?schema=NAME puts runner's tables in a
// schema of their own (made on first use), so two schemas of one database
// hold separate states and separate locks.
func TestSchemasKeepStatesApart(t *testing.T) {
	srv := pgtest.Need(t)
	db := srv.Database(t)
	ctx := context.Background()
	stores := map[string]*postgres.Store{}
	for _, schema := range []string{"team_a", "team_b"} {
		s, err := postgres.Open(ctx, srv.URL(db, true)+"&schema="+schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		stores[schema] = s
	}
	a, b := stores["team_a"], stores["team_b"]
	c := statetest.NewCrypter(1)
	la, err := a.Lock(ctx, "net", "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.Lock(ctx, "net", "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatalf("a lock in one schema held up the same stack in another: %v", err)
	}
	j, err := a.OpenJournal(ctx, "net", "dev", nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(ctx, statetest.Snapshot("net", "dev", 2), backend.HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
		t.Fatal(err)
	}
	la.Unlock()
	lb.Unlock()
	if snap, err := b.Load(ctx, "net", "dev", c); err != nil || snap != nil {
		t.Fatalf("schema team_b sees team_a's state: %v, %v", snap, err)
	}
	if snap, err := a.Load(ctx, "net", "dev", c); err != nil || snap == nil {
		t.Fatalf("schema team_a lost its state: %v, %v", snap, err)
	}
}

// TestBadURLsAreRefused: URLs that name no usable database are refused
// with a *backend.UnavailableError whose message holds no password.
func TestBadURLsAreRefused(t *testing.T) {
	for _, raw := range []string{
		"postgres://u:hunter2@127.0.0.1:1/db?schema=a;drop",
		"postgres://u:hunter2@127.0.0.1:1/db?sslmode=disable&password=hunter2",
		"postgres://u:hunter2@127.0.0.1:1/db?sslmode=disable",
	} {
		_, err := postgres.Open(context.Background(), raw)
		var unavailable *backend.UnavailableError
		if err == nil || !strings.Contains(err.Error(), "xxxxx") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%s) = %v, want a refusal naming the redacted URL", backend.RedactURL(raw), err)
		}
		if !errors.As(err, &unavailable) {
			t.Errorf("Open(%s) = %T, want a *backend.UnavailableError", backend.RedactURL(raw), err)
		}
	}
}

// TestMigrationsApplyInOrder: a database that an older runner set up
// (schema version 1) is brought to the current version on open, once,
// even when several processes open it at once.
func TestMigrationsApplyInOrder(t *testing.T) {
	srv := pgtest.Need(t)
	db := srv.Database(t)
	ctx := context.Background()
	first, err := postgres.Open(ctx, srv.URL(db, true))
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	conn, err := pgx.Connect(ctx, srv.URL(db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DELETE FROM runner_schema_migrations WHERE version > 1;
		DROP FUNCTION runner_check_base`); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(ctx, srv.URL(db, true))
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var versions []int32
	rows, _ := conn.Query(ctx, `SELECT version FROM runner_schema_migrations ORDER BY 1`)
	versions, err = pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(versions) != 2 || versions[1] != 2 {
		t.Fatalf("versions after the upgrade = %v, %v; want [1 2]", versions, err)
	}
}

// TestLockSessionNamesItsHolder: while a lock is held, pg_stat_activity
// names its holder (application_name), so that an operator can tell whose
// session it is; once released the session is plain "runner" again.
func TestLockSessionNamesItsHolder(t *testing.T) {
	s := open(t)
	srv := pgtest.Need(t)
	ctx := context.Background()
	me := backend.CurrentLockInfo("runner up")
	l, err := s.Lock(ctx, "net", "dev", me)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, strings.Replace(s.URL(), "xxxxx", srv.Password, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(name string) int {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := fmt.Sprintf("runner up pid %d on host %s", me.PID, me.Host)
	if len(want) > 63 {
		want = want[:63]
	}
	if n := count(want); n != 1 {
		t.Fatalf("%d sessions are named %q while the lock is held, want 1", n, want)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if n := count(want); n != 0 {
		t.Fatalf("%d sessions are still named %q after Unlock", n, want)
	}
}
