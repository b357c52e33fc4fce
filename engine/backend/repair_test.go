package backend

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestOldJournalOfFirstUpLoads loads the journal a killed first up left
// before the engine journaled the root stack and the default providers:
// resources whose parent and provider were never journaled, and a
// dependency on a resource deleted since. Load resolves those references
// as the engine's final snapshot would instead of failing.
func TestOldJournalOfFirstUpLoads(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	j, err := f.OpenJournal(ctx, "network", "dev", nil, c)
	if err != nil {
		t.Fatal(err)
	}
	full := statetest.Snapshot("network", "dev", 3) // root, provider, r00000..r00002
	for i, r := range full.Resources[2:] {
		seq := int64(i + 1)
		if err := j.Begin(ctx, Entry{Seq: seq, Op: "create", New: r}); err != nil {
			t.Fatal(err)
		}
		if err := j.End(ctx, Entry{Seq: seq, Kind: EntrySuccess, Op: "create", New: r}); err != nil {
			t.Fatal(err)
		}
	}
	gone := full.Resources[3] // r00001, which r00002 depends on
	j.Begin(ctx, Entry{Seq: 9, Op: "delete", Old: gone})
	j.End(ctx, Entry{Seq: 9, Kind: EntrySuccess, Op: "delete", Old: gone})
	crash(j)

	snap, err := openTemp2(t, f).Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	types := map[string]int{}
	for _, r := range snap.Resources {
		types[r.Type]++
	}
	if types[resource.RootStackType] != 1 || types["pulumi:providers:test"] != 1 || types["test:index:Thing"] != 2 {
		t.Errorf("folded state holds %v", types)
	}
	if last := snap.Resources[len(snap.Resources)-1]; len(last.Dependencies) != 0 {
		t.Errorf("%s still depends on %v", last.URN, last.Dependencies)
	}
}

// openTemp2 opens another Folder on f's folder (a new process).
func openTemp2(t *testing.T, f *Folder) *Folder {
	t.Helper()
	g, err := Open(f.Root)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestUnreadableStateWhileLockedNamesHolder reads a state that cannot be
// folded (a journal of another snapshot) while a live process holds the
// lock: the error is a *LockedError naming the holder.
func TestUnreadableStateWhileLockedNamesHolder(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 1), c)
	p, _ := f.paths("network", "dev")
	if err := os.WriteFile(p.journal, []byte(`{"kind":"open","base":"0123"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Load(ctx, "network", "dev", c); err == nil {
		t.Fatal("a journal of another snapshot was folded")
	}
	holder, _ := json.Marshal(LockInfo{PID: 1, Host: hostname(), Command: "runner up", Started: time.Now()})
	os.MkdirAll(filepath.Dir(p.lock), 0o755)
	if err := os.WriteFile(p.lock, holder, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := f.Load(ctx, "network", "dev", c)
	var locked *LockedError
	if !errors.As(err, &locked) || !strings.Contains(err.Error(), "runner up (pid 1") {
		t.Fatalf("Load while locked = %v, want a *LockedError naming the holder", err)
	}
}

// TestRepairFoldsJournalAndFixesReferences repairs a broken snapshot with a
// leftover journal: the journal's steps are kept, the dangling references
// resolved, pending operations cleared, and a second repair changes
// nothing.
func TestRepairFoldsJournalAndFixesReferences(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	broken := statetest.Snapshot("network", "dev", 2)
	broken.Resources = broken.Resources[2:] // root and provider gone
	data, err := state.MarshalCheckpoint(ctx, broken, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := f.paths("network", "dev")
	os.MkdirAll(p.dir, 0o755)
	os.MkdirAll(filepath.Dir(p.snapshot), 0o755)
	if err := os.WriteFile(p.snapshot, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Load(ctx, "network", "dev", c); err == nil || !strings.Contains(err.Error(), "dangling reference") {
		t.Fatalf("Load of the broken snapshot = %v", err)
	}
	// A journal begun from it: one step done, one pending.
	journal := `{"kind":"open","base":"` + hashOf(data) + `"}` + "\n"
	for _, e := range []Entry{
		{Seq: 1, Kind: EntryBegin, Op: "create", New: statetest.Thing("network", "dev", 7, time.Now())},
		{Seq: 1, Kind: EntrySuccess, Op: "create", New: statetest.Thing("network", "dev", 7, time.Now())},
		{Seq: 2, Kind: EntryBegin, Op: "create", New: statetest.Thing("network", "dev", 8, time.Now())},
	} {
		line, err := encodeEntry(ctx, e, c)
		if err != nil {
			t.Fatal(err)
		}
		journal += string(line)
	}
	os.WriteFile(p.journal, []byte(journal), 0o644)

	changes, err := f.Repair(ctx, "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(changes, "\n")
	for _, want := range []string{"folded the 1 finished steps", "added the provider", "added the root stack", `cleared the pending operation creating test:index:Thing "r00008" tagged env=dev (urn:pulumi:dev::network::test:index:Thing::r00008)`} {
		if !strings.Contains(all, want) {
			t.Errorf("changes do not say %q:\n%s", want, all)
		}
	}
	snap, err := openTemp2(t, f).Load(ctx, "network", "dev", c)
	if err != nil {
		t.Fatalf("Load after repair: %v", err)
	}
	if len(snap.Resources) != 2+2+1 || len(snap.PendingOperations) != 0 || fileExists(p.journal) {
		t.Errorf("after repair: %d resources, %d pending, journal left: %v", len(snap.Resources), len(snap.PendingOperations), fileExists(p.journal))
	}
	if again, err := f.Repair(ctx, "network", "dev", c); err != nil || len(again) != 0 {
		t.Errorf("second repair = %v, %v", again, err)
	}
}
