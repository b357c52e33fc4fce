package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestStaleBaseIsNotCommitted: an operation whose base was loaded before
// another run committed (so its Origin names a snapshot no longer stored)
// commits nothing, and the other run's state stays.
func TestStaleBaseIsNotCommitted(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	c := statetest.NewCrypter(3)
	put := func(n int) {
		t.Helper()
		l, err := s.Lock(ctx, "net", "dev", backend.CurrentLockInfo("runner up"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		base, err := s.Load(ctx, "net", "dev", c)
		if err != nil {
			t.Fatal(err)
		}
		j, err := s.OpenJournal(ctx, "net", "dev", base, c)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Commit(ctx, statetest.Snapshot("net", "dev", n), backend.HistoryRecord{Kind: "update"}); err != nil {
			t.Fatal(err)
		}
	}
	put(1)
	stale, err := s.Load(ctx, "net", "dev", c) // loaded without the lock
	if err != nil {
		t.Fatal(err)
	}
	put(3)
	l, err := s.Lock(ctx, "net", "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	j, err := s.OpenJournal(ctx, "net", "dev", stale, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Op: "create", New: statetest.Snapshot("net", "dev", 5).Resources[4]}); !errors.Is(err, backend.ErrFenced) {
		t.Fatalf("a journal entry on a stale base = %v, want ErrFenced", err)
	}
	if err := j.Commit(ctx, statetest.Snapshot("net", "dev", 2), backend.HistoryRecord{Kind: "update"}); !errors.Is(err, backend.ErrFenced) {
		t.Fatalf("the commit of a stale base = %v, want ErrFenced", err)
	}
	if got, err := s.Load(ctx, "net", "dev", c); err != nil || len(got.Resources) != len(statetest.Snapshot("net", "dev", 3).Resources) {
		t.Fatalf("after the refused commit: %v, %v; want the other run's state", got, err)
	}
}
