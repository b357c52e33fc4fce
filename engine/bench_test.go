package engine_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/postgres"
	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// wideProgram declares n resources; every other one refers to an earlier
// resource's output, so the graph has both chains and fan-out.
func wideProgram(n int) engine.Program {
	return func(ctx *engine.Context) error {
		rs := make([]*engine.Resource, n)
		for i := range rs {
			in := engine.Inputs{"index": i, "name": fmt.Sprintf("r%d", i)}
			if i%2 == 1 {
				in["parent"] = rs[i/2].Output("result")
			}
			rs[i] = ctx.Resource(typ, fmt.Sprintf("r%d", i), in)
		}
		ctx.Export("first", rs[0].Output("result"))
		return nil
	}
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// benchBackends lists the backends to benchmark against: postgres too when
// a server can be started (pgtest).
func benchBackends(b *testing.B) map[string]func() backend.Backend {
	backends := map[string]func() backend.Backend{
		"memory": func() backend.Backend { return plugintest.NewBackend() },
		"folder": func() backend.Backend {
			f, err := backend.Open("file://" + b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return f
		},
	}
	s3Backends(b, backends)
	if _, err := pgtest.Shared(); err != nil {
		b.Logf("no postgres figures: %v", err)
		return backends
	}
	backends["postgres"] = func() backend.Backend { return openPostgres(b) }
	return backends
}

// openPostgres opens a store on a new database of the shared server.
func openPostgres(b *testing.B) *postgres.Store {
	srv := pgtest.Need(b)
	s, err := postgres.Open(context.Background(), srv.URL(srv.Database(b), true))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// BenchmarkPostgresNoopRoundTrips counts the round trips to the server of a
// no-op up of one project (lock, load, commit, unlock), reported as
// trips/project.
func BenchmarkPostgresNoopRoundTrips(b *testing.B) {
	if _, err := pgtest.Shared(); err != nil {
		b.Skipf("no postgres server: %v", err)
	}
	s := openPostgres(b)
	opts := benchOptions(s)
	prog := wideProgram(100)
	if _, err := engine.Up(context.Background(), opts, prog); err != nil {
		b.Fatal(err)
	}
	before := s.RoundTrips()
	runs := 0
	for b.Loop() {
		res, err := engine.Up(context.Background(), opts, prog)
		if err != nil {
			b.Fatal(err)
		}
		if res.Changes[engine.OpSame] != 101 {
			b.Fatalf("changes %v", res.Changes)
		}
		runs++
	}
	b.ReportMetric(float64(s.RoundTrips()-before)/float64(runs), "trips/project")
}

func benchOptions(be backend.Backend) engine.Options {
	return engine.Options{
		Project: project, Stack: stack, Backend: be,
		Plugins: []resource.Plugin{&plugintest.Plugin{NoCallLog: true}},
		Crypter: statetest.NewCrypter(7),
	}
}

func BenchmarkPreviewNoop10k(b *testing.B) {
	for name, newBackend := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			opts := benchOptions(newBackend())
			prog := wideProgram(10_000)
			if _, err := engine.Up(context.Background(), opts, prog); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				res, err := engine.Preview(context.Background(), opts, prog)
				if err != nil {
					b.Fatal(err)
				}
				if res.Changes[engine.OpSame] != 10_001 {
					b.Fatalf("changes %v", res.Changes)
				}
			}
		})
	}
}

func BenchmarkUpCreate10k(b *testing.B) {
	for name, newBackend := range benchBackends(b) {
		b.Run(name, func(b *testing.B) {
			prog := wideProgram(10_000)
			for b.Loop() {
				opts := benchOptions(newBackend())
				res, err := engine.Up(context.Background(), opts, prog)
				if err != nil {
					b.Fatal(err)
				}
				if res.Changes[engine.OpCreate] != 10_001 {
					b.Fatalf("changes %v", res.Changes)
				}
			}
		})
	}
}
