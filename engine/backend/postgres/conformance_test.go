package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/backendtest"
	"github.com/runnerhq/runner/engine/backend/postgres"
	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open returns a store on a new database of the shared server, closed
// when the test ends.
func open(t testing.TB) *postgres.Store {
	t.Helper()
	srv := pgtest.Need(t)
	s, err := postgres.Open(context.Background(), srv.URL(srv.Database(t), true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestPostgresConformance(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backend.Store { return open(t) })
}
