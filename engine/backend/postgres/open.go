// Package postgres is the PostgreSQL backend (postgres://user@host:port/db):
// state, journals, locks, history and tags in tables of one database,
// created by a versioned migration on first use (see schema.go).
//
// A lock is a session advisory lock taken on a connection held for the
// lock's life, plus a row of runner_locks naming the holder. A process
// that dies loses its session and so its lock; the row it leaves is
// overwritten by the next holder. Every write of an operation (journal
// batches, the commit) first checks, in its own transaction, that the
// lock's session still holds the advisory lock and the row is still the
// holder's (fencing): a holder whose lock was cleared cannot go on.
//
// The journal is the folder backend's lines (backend.EncodeJournalEntry),
// one row each, inserted a batch per round trip; a commit replaces the
// snapshot, records the history and deletes the journal in one
// transaction, so the database holds either the old snapshot and its
// journal or the new snapshot, and Load folds a journal left by a crash
// exactly as the folder does (backend.FoldJournal).
//
// The password comes from the URL, PGPASSWORD or ~/.pgpass (PGPASSFILE),
// as libpq finds it; it is never printed. Connect directly or through a
// pooler in session mode: transaction pooling breaks session locks.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/runnerhq/runner/engine/backend"
)

// Store is the PostgreSQL backend. It is safe for concurrent use.
type Store struct {
	url    string // redacted
	schema string
	pool   *pgxpool.Pool // data
	locks  *pgxpool.Pool // one connection per held lock
	trips  atomic.Int64  // round trips to the server

	heldMu sync.Mutex
	held   map[[2]string]*heldLock // the locks this process holds, by (stack, project)
	all    map[*heldLock]bool      // every lock held, for Close

	seenMu sync.Mutex
	seen   map[[2]string]seen // (stack, project) → the snapshot last read or written
}

var _ backend.Store = (*Store)(nil)

// OpenURL is the backend.Opener of postgres:// and postgresql:// URLs.
func OpenURL(ctx context.Context, raw string) (backend.Store, error) {
	s, err := Open(ctx, raw)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Open connects to the database raw names and brings its tables to this
// runner's schema version. Anything that keeps it from doing so (the
// server is unreachable, refuses the credentials or TLS, has no such
// database, or holds a newer schema) is a *backend.UnavailableError
// naming the URL without its password.
func Open(ctx context.Context, raw string) (*Store, error) {
	redacted := backend.RedactURL(raw)
	fail := func(problem error, hint string) error {
		return &backend.UnavailableError{URL: redacted, Problem: scrub(problem, raw), Hint: hint}
	}
	conn, schema, err := splitURL(raw)
	if err != nil {
		return nil, fail(err, "write it as postgres://user@host:port/database?sslmode=require")
	}
	if _, err := pgconn.ParseConfig(conn); err != nil {
		return nil, fail(err, "fix the URL's parameters (sslmode is disable, allow, prefer, require, verify-ca or verify-full)")
	}
	if err := checkPassfile(conn); err != nil {
		return nil, fail(err, "make it readable by its owner only: chmod 0600 it")
	}
	s := &Store{url: redacted, schema: schema}
	if s.pool, err = s.newPool(conn, 8, nil); err == nil {
		s.locks, err = s.newPool(conn, 256, lockSessionParams)
	}
	if err != nil {
		return nil, fail(err, "write it as postgres://user@host:port/database?sslmode=require")
	}
	if err := s.pool.Ping(ctx); err != nil {
		s.Close()
		return nil, fail(connectProblem(err))
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		var newer *newerSchemaError
		if errors.As(err, &newer) {
			return nil, fail(err, "upgrade runner, or use another database or schema")
		}
		return nil, fail(err, "check that the user may create tables in the database (or schema) named")
	}
	return s, nil
}

// lockSessionParams are the settings of the sessions that hold locks: the
// server notices a vanished holder in about a minute, not two hours.
var lockSessionParams = map[string]string{
	"tcp_keepalives_idle": "30", "tcp_keepalives_interval": "10", "tcp_keepalives_count": "3",
}

func (s *Store) newPool(conn string, max int32, params map[string]string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(conn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = max
	cfg.MaxConnIdleTime = time.Minute
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if s.schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = s.schema
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "runner"
	for k, v := range params {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	cfg.ConnConfig.Tracer = tripCounter{&s.trips}
	// One round trip per query, no statement prepared first: runner is a
	// short-lived process that runs each statement a few times per
	// connection, so preparing would double the round trips.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	return pgxpool.NewWithConfig(context.Background(), cfg)
}

// Close releases the store's connections (and so any lock still held).
func (s *Store) Close() {
	s.dropLocks()
	if s.pool != nil {
		s.pool.Close()
	}
	if s.locks != nil {
		s.locks.Close()
	}
}

// RoundTrips counts the queries and batches sent to the server so far
// (each is one round trip), for benchmarks.
func (s *Store) RoundTrips() int64 { return s.trips.Load() }

// URL is the store's URL without its password.
func (s *Store) URL() string { return s.url }

// splitURL takes runner's own parameter (schema: where the tables are) out
// of a postgres URL, which pgx would otherwise send to the server as a
// setting.
func splitURL(raw string) (conn, schema string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", errors.New("the URL does not parse")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return "", "", fmt.Errorf("the scheme %s:// is not postgres://", u.Scheme)
	}
	q := u.Query()
	schema = q.Get("schema")
	if schema != "" && !validIdent(schema) {
		return "", "", fmt.Errorf("the schema %q is not a plain name (letters, digits and _)", schema)
	}
	q.Del("schema")
	u.RawQuery = q.Encode()
	return u.String(), schema, nil
}

func validIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return len(s) > 0 && len(s) <= 63
}

// checkPassfile refuses, as libpq ignores, a password file that others
// may read, when the password would come from it (none in the URL or
// PGPASSWORD).
func checkPassfile(conn string) error {
	cfg, err := pgconn.ParseConfig(conn)
	if err != nil {
		return err
	}
	if u, _ := url.Parse(conn); u != nil {
		if _, set := u.User.Password(); set {
			return nil
		}
	}
	if os.Getenv("PGPASSWORD") != "" {
		return nil
	}
	path := os.Getenv("PGPASSFILE")
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		path = filepath.Join(home, ".pgpass")
	}
	st, err := os.Stat(path)
	if err != nil || cfg.Password == "" {
		return nil
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the password file %s may be read by others (mode %04o), so its password is not used", path, st.Mode().Perm())
	}
	return nil
}

// connectProblem explains a failed first connection and what to do.
func connectProblem(err error) (error, string) {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "28P01", "28000":
			return errors.New("the server refused the credentials (" + pg.Message + ")"),
				"check the user and the password (in the URL, PGPASSWORD or ~/.pgpass)"
		case "3D000":
			return errors.New("the server has no such database (" + pg.Message + ")"),
				"create it (createdb), or name an existing one in the URL"
		}
		return errors.New(pg.Message), "check the URL and the server's log"
	}
	msg := err.Error()
	var netErr net.Error
	switch {
	case strings.Contains(msg, "server refused TLS") || strings.Contains(msg, "tls:"):
		return errors.New("no TLS connection could be made (" + lastPart(msg) + ")"),
			"enable ssl on the server, or set sslmode=disable only on a network you trust"
	case errors.As(err, &netErr) || strings.Contains(msg, "dial") || strings.Contains(msg, "connect:"):
		return errors.New("the server cannot be reached (" + lastPart(msg) + ")"),
			"check the host and port, and that PostgreSQL runs there and accepts TCP connections"
	}
	return errors.New(lastPart(msg)), "check the URL and that the server runs"
}

// lastPart is the end of a connection error, after pgx's preamble.
func lastPart(msg string) string {
	if i := strings.LastIndex(msg, "): "); i >= 0 {
		return msg[i+3:]
	}
	return msg
}

// scrub removes the password of raw from err's text, should a server or
// driver message quote it.
func scrub(err error, raw string) error {
	u, perr := url.Parse(raw)
	if perr != nil || err == nil {
		return err
	}
	secrets := []string{}
	if pw, ok := u.User.Password(); ok && pw != "" {
		secrets = append(secrets, pw)
	}
	if pw := u.Query().Get("password"); pw != "" {
		secrets = append(secrets, pw)
	}
	if pw := os.Getenv("PGPASSWORD"); pw != "" {
		secrets = append(secrets, pw)
	}
	msg := err.Error()
	for _, pw := range secrets {
		if strings.Contains(msg, pw) {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// tripCounter counts queries and batches.
type tripCounter struct{ n *atomic.Int64 }

func (c tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

var _ backend.Identifier = (*Store)(nil)

// Identity names the database cluster (its system identifier, which every
// connection to it reads the same), the database and the schema the
// tables are in. A role that may not read the identifier gets the
// server's address and port instead.
func (s *Store) Identity(ctx context.Context) (string, error) {
	var cluster, db, schema string
	err := s.pool.QueryRow(ctx, `SELECT (SELECT system_identifier::text FROM pg_control_system()), current_database(), current_schema()`).Scan(&cluster, &db, &schema)
	if err != nil {
		var addr *string
		err = s.pool.QueryRow(ctx, `SELECT host(inet_server_addr()) || ':' || inet_server_port(), current_database(), current_schema()`).Scan(&addr, &db, &schema)
		if err != nil {
			return "", fmt.Errorf("naming the database of %s: %w", s.url, err)
		}
		if addr == nil { // a Unix socket: the path names the server
			cfg := s.pool.Config().ConnConfig
			cluster = fmt.Sprintf("socket %s:%d", cfg.Host, cfg.Port)
		} else {
			cluster = "server " + *addr
		}
	}
	return fmt.Sprintf("postgres cluster %s, database %s, schema %s", cluster, db, schema), nil
}
