package backendtest

import (
	"context"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// testNoopRecordsOnlyTheStack: a commit that leaves the state as stored
// (the manifest's time and secrets' ciphertexts aside) records nothing in
// the project's history unless it failed; the run is recorded once in the
// stack's own history (StackRecorder), which History lists without a
// project, and a later change commits and is recorded as before.
func testNoopRecordsOnlyTheStack(t *testing.T, b backend.Store) {
	ctx := context.Background()
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 2))
	records := func() int {
		h, err := b.History(ctx, stack, project)
		if err != nil {
			t.Fatal(err)
		}
		return len(h)
	}
	if n := records(); n != 1 {
		t.Fatalf("%d records after the first commit, want 1", n)
	}
	same := func(result string) {
		l, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner up"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		base, err := b.Load(ctx, project, stack, crypter)
		if err != nil {
			t.Fatal(err)
		}
		j, err := b.OpenJournal(ctx, project, stack, base, crypter)
		if err != nil {
			t.Fatal(err)
		}
		final := *base
		final.Manifest.Time = time.Now().UTC()
		if err := j.Commit(ctx, &final, backend.HistoryRecord{Kind: "update", Result: result}); err != nil {
			t.Fatal(err)
		}
	}
	same("succeeded")
	if n := records(); n != 1 {
		t.Fatalf("%d records after a commit that changed nothing, want 1 (no record of a no-op)", n)
	}
	same("failed")
	if n := records(); n != 2 {
		t.Fatalf("%d records after a failed commit that changed nothing, want 2 (a failure is recorded)", n)
	}
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 3))
	if n := records(); n != 3 {
		t.Fatalf("%d records after a commit that changed the state, want 3", n)
	}
	snap, err := b.Load(ctx, project, stack, crypter)
	if err != nil || len(snap.Resources) != len(statetest.Snapshot(project, stack, 3).Resources) {
		t.Fatalf("the state after the change: %v, %v", snapshotSize(snap), err)
	}
	testStackRecords(t, b, records)
}

// testStackRecords: a run of the whole stack is recorded in the stack's
// own history (StackRecorder), which LastStackRun reads newest first and
// History lists without a project; the project's history does not list
// it. records counts the project's records (3 before).
func testStackRecords(t *testing.T, b backend.Store, records func() int) {
	ctx := context.Background()
	rec, ok := b.(backend.StackRecorder)
	if !ok {
		t.Fatal("the backend does not record runs of a whole stack (backend.StackRecorder)")
	}
	run := backend.HistoryRecord{Kind: "update", Result: "succeeded", StartTime: time.Now().UTC(), EndTime: time.Now().UTC(),
		Changes: map[string]int{"same": 5}, Projects: map[string]map[string]int{project: {"same": 5}}}
	reader, ok := b.(backend.StackRunReader)
	if !ok {
		t.Fatal("the backend does not read the newest run of a whole stack (backend.StackRunReader)")
	}
	if last, err := reader.LastStackRun(ctx, stack); err != nil || last != nil {
		t.Fatalf("LastStackRun before any = %+v, %v; want none", last, err)
	}
	if err := rec.RecordStackRun(ctx, stack, run); err != nil {
		t.Fatal(err)
	}
	failed := run
	failed.Result, failed.StartTime, failed.EndTime = "failed", time.Now().UTC().Add(time.Millisecond), time.Now().UTC().Add(time.Millisecond)
	time.Sleep(2 * time.Millisecond) // the records' names are their times
	if err := rec.RecordStackRun(ctx, stack, failed); err != nil {
		t.Fatal(err)
	}
	if last, err := reader.LastStackRun(ctx, stack); err != nil || last == nil || last.Result != "failed" || last.Projects[project]["same"] != 5 {
		t.Fatalf("LastStackRun = %+v, %v; want the newer (failed) record", last, err)
	}
	all, err := b.History(ctx, stack, "")
	if err != nil || len(all) != 5 || all[0].Project != "" || all[0].Projects[project]["same"] != 5 {
		t.Fatalf("History of the stack = %+v, %v; want the stack's two records first, then the project's 3", all, err)
	}
	if n := records(); n != 3 {
		t.Fatalf("the project's history lists the stack's record: %d records, want 3", n)
	}
}

func snapshotSize(s *state.Snapshot) int {
	if s == nil {
		return -1
	}
	return len(s.Resources)
}
