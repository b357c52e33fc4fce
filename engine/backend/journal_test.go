package backend

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// crash abandons an open journal as a killed process would: the writer
// stops, the file stays.
func crash(j Journal) {
	fj := j.(*folderJournal)
	fj.stop()
	fj.close()
}

func openJournal(t *testing.T, f *Folder, c resource.Crypter) (*state.Snapshot, Journal) {
	t.Helper()
	ctx := context.Background()
	commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 3), c)
	base, err := f.Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal(ctx, "network", "dev", base, c)
	if err != nil {
		t.Fatal(err)
	}
	return base, j
}

func TestJournalFoldsOnLoad(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	base, j := openJournal(t, f, c)
	now := time.Now()
	root := base.Resources[0].URN

	created := statetest.Thing("network", "dev", 10, now)
	created.Parent = root
	updatedOld := base.Resources[4]
	updatedNew := *updatedOld
	updatedNew.Outputs = resource.PropertyMap{"size": float64(99), "password": resource.Secret{Element: "new-secret"}}
	failing := statetest.Thing("network", "dev", 11, now)
	unfinishedCreate := statetest.Thing("network", "dev", 12, now)
	unfinishedUpdate := *base.Resources[2]
	unfinishedUpdate.Inputs = resource.PropertyMap{"x": "y"}
	unfinishedDelete := base.Resources[3]

	steps := []Entry{
		{Seq: 1, Kind: EntryBegin, Op: "create", New: created},
		{Seq: 1, Kind: EntrySuccess, Op: "create", New: created},
		{Seq: 2, Kind: EntryBegin, Op: "update", Old: updatedOld, New: &updatedNew},
		{Seq: 2, Kind: EntrySuccess, Op: "update", Old: updatedOld, New: &updatedNew},
		{Seq: 3, Kind: EntryBegin, Op: "create", New: failing},
		{Seq: 3, Kind: EntryFailure, Op: "create"},
		{Seq: 4, Kind: EntryBegin, Op: "create", New: unfinishedCreate},
		{Seq: 5, Kind: EntryBegin, Op: "update", Old: base.Resources[2], New: &unfinishedUpdate},
		{Seq: 6, Kind: EntryBegin, Op: "delete", Old: unfinishedDelete},
	}
	for _, e := range steps {
		var err error
		if e.Kind == EntryBegin {
			err = j.Begin(ctx, e)
		} else {
			err = j.End(ctx, e)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	crash(j)
	raw, _ := os.ReadFile(filepath.Join(f.Root, ".runner", "stacks", "dev", "network", "journal.jsonl"))
	if strings.Contains(string(raw), "new-secret") || strings.Contains(string(raw), "pw-r0001") {
		t.Fatal("a plaintext secret reached the journal")
	}

	got, err := f.Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Resources); n != len(base.Resources)+1 {
		t.Fatalf("%d resources after the fold, want %d", n, len(base.Resources)+1)
	}
	if got.Resources[len(got.Resources)-1].URN != created.URN {
		t.Errorf("the created resource is not last")
	}
	if !resource.DeepEqual(map[string]any(got.Resources[4].Outputs), map[string]any(updatedNew.Outputs)) {
		t.Errorf("the update was not applied: %v", got.Resources[4].Outputs)
	}
	wantPending := []struct {
		urn resource.URN
		op  state.OperationType
	}{{unfinishedCreate.URN, state.OperationCreating}, {unfinishedUpdate.URN, state.OperationUpdating}, {unfinishedDelete.URN, state.OperationDeleting}}
	if len(got.PendingOperations) != len(wantPending) {
		t.Fatalf("pending = %+v", got.PendingOperations)
	}
	for i, w := range wantPending {
		p := got.PendingOperations[i]
		if p.Resource.URN != w.urn || p.Type != w.op {
			t.Errorf("pending[%d] = %s %s, want %s %s", i, p.Type, p.Resource.URN, w.op, w.urn)
		}
	}

	// The next operation starts from the folded state; its commit replaces it.
	j2, err := f.OpenJournal(ctx, "network", "dev", got, c)
	if err != nil {
		t.Fatal(err)
	}
	final := *got
	final.PendingOperations = nil
	if err := j2.Commit(ctx, &final, HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
		t.Fatal(err)
	}
	again, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(again.PendingOperations) != 0 || canonical(t, again) != canonical(t, &final) {
		t.Fatalf("after the commit: %v, %d pending", err, len(again.PendingOperations))
	}
}

func TestJournalTornTailIsDropped(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	_, j := openJournal(t, f, c)
	r := statetest.Thing("network", "dev", 20, time.Now())
	if err := j.Begin(ctx, Entry{Seq: 1, Kind: EntryBegin, Op: "create", New: r}); err != nil {
		t.Fatal(err)
	}
	if err := j.End(ctx, Entry{Seq: 1, Kind: EntrySuccess, Op: "create", New: r}); err != nil {
		t.Fatal(err)
	}
	crash(j)
	path := filepath.Join(f.Root, ".runner", "stacks", "dev", "network", "journal.jsonl")
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	// Cut the last entry (the success) in half: the create never ended.
	torn := strings.Join(lines[:len(lines)-2], "") + lines[len(lines)-2][:40]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := f.Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.PendingOperations) != 1 || got.PendingOperations[0].Type != state.OperationCreating {
		t.Fatalf("pending = %+v", got.PendingOperations)
	}
	// A bad line that is not the last is an error naming the journal and line.
	bad := lines[0] + "{garbage\n" + strings.Join(lines[1:], "")
	os.WriteFile(path, []byte(bad), 0o644)
	_, err = f.Load(ctx, "network", "dev", c)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("Load with a corrupt journal = %v", err)
	}
}

func TestJournalBeginIsDurableBeforeReturn(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	_, j := openJournal(t, f, c)
	r := statetest.Thing("network", "dev", 30, time.Now())
	if err := j.Begin(ctx, Entry{Seq: 7, Op: "create", New: r}); err != nil {
		t.Fatal(err)
	}
	// Without stopping the writer, the entry is already in the file.
	data, _ := os.ReadFile(filepath.Join(f.Root, ".runner", "stacks", "dev", "network", "journal.jsonl"))
	if !strings.Contains(string(data), `"seq":7`) {
		t.Fatalf("the begin entry is not on disk when Begin returns:\n%s", data)
	}
	if err := j.Commit(ctx, statetest.Snapshot("network", "dev", 3), HistoryRecord{Kind: "update"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Begin(ctx, Entry{Seq: 8, Op: "create", New: r}); err == nil {
		t.Fatal("Begin after Commit succeeded")
	}
}

func TestCommittedJournalLeftBehindIsIgnored(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	_, j := openJournal(t, f, c)
	r := statetest.Thing("network", "dev", 40, time.Now())
	j.Begin(ctx, Entry{Seq: 1, Op: "create", New: r})
	path := filepath.Join(f.Root, ".runner", "stacks", "dev", "network", "journal.jsonl")
	if err := j.Commit(ctx, statetest.Snapshot("network", "dev", 3), HistoryRecord{Kind: "update"}); err != nil {
		t.Fatal(err)
	}
	// Simulate a crash between the snapshot's rename and the journal's removal.
	fj := j.(*folderJournal)
	snap, _ := os.ReadFile(fj.p.snapshot)
	journal := `{"kind":"open","base":"` + strings.Repeat("0", 64) + `"}` + "\n" + `{"kind":"begin","seq":1,"op":"create"}` + "\n" + `{"kind":"commit","snapshot":"` + hashOf(snap) + `"}` + "\n"
	os.WriteFile(path, []byte(journal), 0o644)
	got, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(got.PendingOperations) != 0 {
		t.Fatalf("Load = %v, pending %d", err, len(got.PendingOperations))
	}
	// A journal that began from another snapshot and never committed is refused.
	os.WriteFile(path, []byte(`{"kind":"open","base":"`+strings.Repeat("0", 64)+`"}`+"\n"), 0o644)
	if _, err := f.Load(ctx, "network", "dev", c); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Fatalf("Load = %v", err)
	}
}

func TestGroupCommitSharesFsyncs(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	_, j := openJournal(t, f, c)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := statetest.Thing("network", "dev", 100+i, time.Now())
			errs <- j.Begin(ctx, Entry{Seq: int64(i + 1), Op: "create", New: r})
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	fj := j.(*folderJournal)
	if fj.entries.Load() != n {
		t.Fatalf("%d entries written, want %d", fj.entries.Load(), n)
	}
	if s := fj.syncs.Load(); s >= n {
		t.Fatalf("%d fsyncs for %d concurrent entries: no group commit", s, n)
	}
	t.Logf("%d concurrent begins: %d fsyncs", n, fj.syncs.Load())
	crash(j)
	got, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(got.PendingOperations) != n {
		t.Fatalf("Load = %v, %d pending", err, len(got.PendingOperations))
	}
}

func TestRecoveryWriteCrashWindows(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	_, j := openJournal(t, f, c)
	r := statetest.Thing("network", "dev", 50, time.Now())
	j.Begin(ctx, Entry{Seq: 1, Op: "create", New: r})
	j.End(ctx, Entry{Seq: 1, Kind: EntrySuccess, Op: "create", New: r})
	j.Begin(ctx, Entry{Seq: 2, Op: "create", New: statetest.Thing("network", "dev", 51, time.Now())})
	crash(j)
	p, _ := f.paths("network", "dev")
	folded, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(folded.PendingOperations) != 1 {
		t.Fatalf("Load = %v", err)
	}
	resolved := *folded
	resolved.PendingOperations = nil
	data, _ := state.MarshalCheckpoint(ctx, &resolved, "network", "dev", c)

	// Crash after the leftover journal is sealed, before the snapshot is replaced:
	// the journal still applies to the old snapshot.
	if err := f.sealJournal(p, hashOf(data)); err != nil {
		t.Fatal(err)
	}
	again, err := f.Load(ctx, "network", "dev", c)
	if err != nil || canonical(t, again) != canonical(t, folded) {
		t.Fatalf("Load after sealing = %v", err)
	}
	// Crash after the snapshot is replaced, before the new journal starts.
	current, _ := os.ReadFile(p.snapshot)
	if err := f.replaceSnapshot(p, current, data); err != nil {
		t.Fatal(err)
	}
	after, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(after.PendingOperations) != 0 || canonical(t, after) != canonical(t, &resolved) {
		t.Fatalf("Load after the snapshot was replaced = %v", err)
	}
}

// Every file the folder keeps state in is readable by its owner only: the
// journal and the history hold the same records as the snapshot (before:
// the journal and the history log were created 0644).
func TestStateFilesAreOwnerOnly(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 2), c)
	_, j := openJournal(t, f, c)
	if err := j.Begin(ctx, Entry{Seq: 1, Op: "create", New: statetest.Snapshot("network", "dev", 3).Resources[2]}); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(f.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 && !strings.HasSuffix(path, "lock.json") {
			t.Errorf("%s has mode %v: others may read it", path, perm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoopCommitWritesNoJournal: an operation that journals no step and
// changes nothing creates no journal file (a no-op up writes nothing but
// its history); one that changes the snapshot without a step still goes
// through the journal's commit line; and a kill before anything was
// written leaves nothing to fold.
func TestNoopCommitWritesNoJournal(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	base, j := openJournal(t, f, c)
	path := j.(*folderJournal).p.journal
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("journal exists before any write: %v", err)
	}
	before, _ := os.ReadFile(j.(*folderJournal).p.snapshot)
	if err := j.Commit(ctx, base, HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
		t.Fatal(err)
	}
	if j.(*folderJournal).file != nil {
		t.Fatal("a no-op commit created the journal")
	}
	after, _ := os.ReadFile(j.(*folderJournal).p.snapshot)
	if string(before) != string(after) {
		t.Fatal("a no-op commit rewrote the snapshot")
	}

	// Changed without a step: the commit creates the journal, then removes it.
	base, err := f.Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	j, err = f.OpenJournal(ctx, "network", "dev", base, c)
	if err != nil {
		t.Fatal(err)
	}
	changed := statetest.Snapshot("network", "dev", 2)
	if err := j.Commit(ctx, changed, HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("journal left after its commit: %v", err)
	}
	got, err := f.Load(ctx, "network", "dev", c)
	if err != nil || len(got.Resources) != len(changed.Resources) {
		t.Fatalf("Load = %v, %d resources, want %d", err, len(got.Resources), len(changed.Resources))
	}

	// Killed after the open, before any write: nothing to fold.
	j, err = f.OpenJournal(ctx, "network", "dev", got, c)
	if err != nil {
		t.Fatal(err)
	}
	crash(j)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("journal exists after a kill before any write: %v", err)
	}
	if again, err := f.Load(ctx, "network", "dev", c); err != nil || len(again.Resources) != len(changed.Resources) || len(again.PendingOperations) != 0 {
		t.Fatalf("Load after the kill = %v", err)
	}
}

// TestStepLineIsJSONMarshal: a step's journal line, rendered by hand, is
// byte for byte what json.Marshal renders (what earlier versions wrote).
func TestStepLineIsJSONMarshal(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(1)
	r := statetest.Thing("network", "dev", 7, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC))
	r.Inputs = resource.PropertyMap{"html": "<a href=\"x\">&amp;</a>", "sep": "line\u2028para\u2029", "uni": "é\x01", "pw": resource.Secret{Element: "s"}}
	cases := []Entry{
		{Kind: EntryBegin, Seq: 1, Op: "create", New: r},
		{Kind: EntryBegin, Seq: 2, Op: "update", Old: r, New: r},
		{Kind: EntrySuccess, Seq: 3, Op: "update", Old: r, New: r},
		{Kind: EntryFailure, Seq: 4, Op: "delete", Old: r},
		{Kind: EntryBegin, Op: "odd \"op\" <>"},
	}
	for _, e := range cases {
		got, err := encodeEntry(ctx, e, c)
		if err != nil {
			t.Fatal(err)
		}
		var l journalLine
		if err := json.Unmarshal(got, &l); err != nil {
			t.Fatalf("%s: not JSON: %v", got, err)
		}
		want, _ := json.Marshal(l)
		if string(got) != string(want)+"\n" {
			t.Errorf("line\n%s\nwant\n%s", got, want)
		}
	}
}
