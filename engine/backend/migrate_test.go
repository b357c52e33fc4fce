package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// oldFolder moves project network of stack dev of f, as f now keeps it
// (with a crashed run's journal), to runner's old folder layout under a new
// root, and returns that root's Folder.
func oldFolder(t *testing.T, f *Folder, lock []byte) *Folder {
	t.Helper()
	p, _ := f.paths("network", "dev")
	cp := mustRead(t, p.snapshot)
	export, err := FromCheckpoint(p.snapshot, cp)
	if err != nil {
		t.Fatal(err)
	}
	journal := rebaseJournal(mustRead(t, p.journal), hashOf(cp), hashOf(export))
	old := openTemp(t)
	dir := filepath.Join(old.Root, "stacks", "dev", "network")
	os.MkdirAll(filepath.Join(dir, "history"), 0o755)
	hist, _ := json.Marshal(HistoryEntry{Project: "network", HistoryRecord: HistoryRecord{Kind: "update", Result: "succeeded", StartTime: time.Unix(100, 0), EndTime: time.Unix(200, 0)}})
	files := map[string][]byte{
		filepath.Join(dir, "snapshot.json"):                       export,
		filepath.Join(dir, "journal.jsonl"):                       journal,
		filepath.Join(dir, "history", "20260101T000000Z.json"):    export,
		filepath.Join(old.Root, "stacks", "dev", "history.jsonl"): append(hist, '\n'),
		filepath.Join(old.Root, "stacks", "dev", "tags.json"):     []byte(`{"owner":"me"}`),
	}
	if lock != nil {
		files[filepath.Join(dir, "lock.json")] = lock
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return old
}

// TestMigrationKeepsACrashedRunsJournal: an old-layout folder whose project
// has the journal of a killed run, and the dead run's lock, migrates with
// the journal still folding into the state (its base renamed to the new
// checkpoint), the replaced snapshots as checkpoints, the history and the
// tags; the dead holder's lock is taken over as before.
func TestMigrationKeepsACrashedRunsJournal(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(1)
	f := openTemp(t)
	_, j := openJournal(t, f, c)
	r := statetest.Thing("network", "dev", 50, time.Now())
	j.Begin(ctx, Entry{Seq: 1, Op: "create", New: r})
	j.End(ctx, Entry{Seq: 1, Kind: EntrySuccess, Op: "create", New: r})
	j.Begin(ctx, Entry{Seq: 2, Op: "create", New: statetest.Thing("network", "dev", 51, time.Now())})
	crash(j)
	want, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(want.PendingOperations) != 1 {
		t.Fatalf("Load before = %v", err)
	}
	dead, _ := json.Marshal(LockInfo{PID: 1 << 22, Host: hostname(), Command: "runner up", Started: time.Now()})
	old := oldFolder(t, f, dead)
	var notices bytes.Buffer
	old.Notices = &notices
	got, err := old.Load(ctx, "network", "dev", c)
	if err != nil || canonical(t, got) != canonical(t, want) {
		t.Fatalf("Load after the migration = %v, want the crashed run's journal folded in", err)
	}
	if strings.Count(notices.String(), "to Pulumi's DIY layout") != 1 {
		t.Fatalf("notices = %q, want one", notices.String())
	}
	p, _ := old.paths("network", "dev")
	if _, err := state.UnmarshalCheckpointOpaque(mustRead(t, filepath.Join(p.history, "20260101T000000Z.json"))); err != nil {
		t.Fatalf("the replaced snapshot was not converted to a checkpoint: %v", err)
	}
	if tags, _ := old.Tags(ctx, "dev"); tags["owner"] != "me" {
		t.Fatalf("tags = %v", tags)
	}
	if h, _ := old.History(ctx, "dev", ""); len(h) != 1 || h[0].Project != "network" || h[0].EndTime.Unix() != 200 {
		t.Fatalf("history = %+v", h)
	}
	l, err := old.Lock(ctx, "network", "dev", CurrentLockInfo("runner up"))
	if err != nil || l.Previous() == nil || l.Previous().PID != 1<<22 {
		t.Fatalf("Lock over the dead holder's migrated lock = %v", err)
	}
	l.Unlock()
}

// TestMigrationRefusedWhileAnOlderRunnerRuns: an old lock whose holder
// still runs (here this test) refuses the migration naming it, and nothing
// is written.
func TestMigrationRefusedWhileAnOlderRunnerRuns(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(1)
	f := openTemp(t)
	_, j := openJournal(t, f, c)
	if err := j.Begin(ctx, Entry{Seq: 1, Op: "create", New: statetest.Thing("network", "dev", 10, time.Now())}); err != nil {
		t.Fatal(err) // the journal file is created by its first line
	}
	crash(j)
	live, _ := json.Marshal(CurrentLockInfo("runner up"))
	old := oldFolder(t, f, live)
	old.Notices = &bytes.Buffer{}
	_, err := old.Load(ctx, "network", "dev", c)
	var locked *LockedError
	if !errors.As(err, &locked) || !strings.Contains(err.Error(), "runner up") {
		t.Fatalf("Load beside a live old holder = %v, want a *LockedError", err)
	}
	if _, err := os.Stat(filepath.Join(old.Root, ".pulumi")); !os.IsNotExist(err) {
		t.Fatal("the refused migration wrote the new layout")
	}
	os.Remove(filepath.Join(old.Root, "stacks", "dev", "network", "lock.json"))
	if _, err := old.Load(ctx, "network", "dev", c); err != nil {
		t.Fatalf("Load once the old holder is gone = %v", err)
	}
}

// TestAStacksFolderRunnerDidNotWriteIsLeftAlone: a folder named stacks in
// the backend's folder that holds nothing of runner's old layout is not
// migrated or moved.
func TestAStacksFolderRunnerDidNotWriteIsLeftAlone(t *testing.T) {
	f := openTemp(t)
	notes := filepath.Join(f.Root, "stacks", "notes", "todo.txt")
	os.MkdirAll(filepath.Dir(notes), 0o755)
	os.WriteFile(notes, []byte("mine"), 0o600)
	var said bytes.Buffer
	f.Notices = &said
	if _, err := f.ListStacks(context.Background()); err != nil || said.Len() > 0 {
		t.Fatalf("ListStacks = %v, said %q", err, said.String())
	}
	if _, err := os.Stat(notes); err != nil {
		t.Fatalf("a file runner did not write was moved: %v", err)
	}
}
