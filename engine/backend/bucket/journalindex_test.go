package bucket_test

import (
	"context"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestStackLockListsJournalsOnce: under the stack's lock, the journals of
// the stack's projects are listed once (when the lock is taken), not once
// per project; a journal a killed run left (another process) is found by
// that listing and folded in, and one this process writes while it holds
// the lock is read back too.
func TestStackLockListsJournalsOnce(t *testing.T) {
	ctx := context.Background()
	mem := bucket.NewMemory()
	c := statetest.NewCrypter(1)
	killed := bucket.New(mem) // a run killed with a step begun
	commitSnapshot(t, killed, "network", 2)
	commitSnapshot(t, killed, "app", 2)
	l, err := killed.Lock(ctx, "network", "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := killed.Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	j, err := killed.OpenJournal(ctx, "network", "dev", base, c)
	if err != nil {
		t.Fatal(err)
	}
	created := statetest.Thing("network", "dev", 9, base.Manifest.Time)
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Kind: backend.EntryBegin, Op: "create", New: created}); err != nil {
		t.Fatal(err)
	}
	_ = l // never released: the process was killed

	counter := &bucket.Counter{Objects: mem, Log: true}
	s := bucket.New(counter) // the next run, another process
	stack, err := s.LockStack(ctx, "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Unlock()
	counter.Requests()
	folded, err := s.Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	if len(folded.PendingOperations) != 1 {
		t.Fatalf("the killed run's journal was not folded in: %d pending operations, want 1", len(folded.PendingOperations))
	}
	counter.Requests()
	app, err := s.Load(ctx, "app", "dev", c)
	if err != nil || app == nil || len(app.PendingOperations) != 0 {
		t.Fatalf("Load app = %v, %v", app, err)
	}
	for _, r := range counter.Requests() {
		if strings.HasPrefix(r, "LIST ") {
			t.Errorf("loading a project without a journal under the stack lock listed %s", r)
		}
	}
	j2, err := s.OpenJournal(ctx, "app", "dev", app, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := j2.Begin(ctx, backend.Entry{Seq: 1, Kind: backend.EntryBegin, Op: "create", New: statetest.Thing("app", "dev", 9, app.Manifest.Time)}); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load(ctx, "app", "dev", c)
	if err != nil || len(again.PendingOperations) != 1 {
		t.Fatalf("a journal this process wrote under the stack lock was not read back: %v, %v", again, err)
	}
}

// commitSnapshot stores a snapshot of n resources for (project, dev).
func commitSnapshot(t *testing.T, s *bucket.Store, project string, n int) {
	t.Helper()
	ctx := context.Background()
	l, err := s.Lock(ctx, project, "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	j, err := s.OpenJournal(ctx, project, "dev", nil, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(ctx, statetest.Snapshot(project, "dev", n), backend.HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
		t.Fatal(err)
	}
}
