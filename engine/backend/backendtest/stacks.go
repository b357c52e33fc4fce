package backendtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

func testHistory(t *testing.T, b backend.Store) {
	ctx := context.Background()
	if h, err := b.History(ctx, stack, ""); err != nil || len(h) != 0 {
		t.Fatalf("History of an empty stack = %v, %v", h, err)
	}
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 1))
	commit(t, b, "app", stack, statetest.Snapshot("app", stack, 1))
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 2))
	commit(t, b, project, "prod", statetest.Snapshot(project, "prod", 1))
	all, err := b.History(ctx, stack, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range all {
		got = append(got, e.Project+":"+e.Kind)
	}
	if want := "[network:update app:update network:update]"; fmt.Sprint(got) != want {
		t.Fatalf("History = %v, want %s (newest first, this stack only)", got, want)
	}
	mine, err := b.History(ctx, stack, "app")
	if err != nil || len(mine) != 1 || mine[0].Project != "app" {
		t.Fatalf("History of app = %+v, %v", mine, err)
	}
}

func testTags(t *testing.T, b backend.Store) {
	ctx := context.Background()
	tags, err := b.Tags(ctx, stack)
	if err != nil || tags == nil || len(tags) != 0 {
		t.Fatalf("Tags of a stack without tags = %#v, %v, want an empty map", tags, err)
	}
	for _, kv := range [][2]string{{"owner", "ann"}, {"team", "infra"}, {"owner", "bob"}} {
		if err := b.SetTag(ctx, stack, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.SetTag(ctx, stack, "", "x"); err == nil {
		t.Fatal("SetTag took an empty name")
	}
	if err := b.RemoveTag(ctx, stack, "team"); err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveTag(ctx, stack, "missing"); err != nil {
		t.Fatalf("RemoveTag of a missing tag: %v", err)
	}
	if tags, err := b.Tags(ctx, stack); err != nil || fmt.Sprint(tags) != "map[owner:bob]" {
		t.Fatalf("Tags = %v, %v", tags, err)
	}
	if tags, err := b.Tags(ctx, "prod"); err != nil || len(tags) != 0 {
		t.Fatalf("Tags of another stack = %v, %v", tags, err)
	}
}

func testListing(t *testing.T, b backend.Store) {
	ctx := context.Background()
	if stacks, err := b.ListStacks(ctx); err != nil || len(stacks) != 0 {
		t.Fatalf("ListStacks of an empty backend = %v, %v", stacks, err)
	}
	if ok, err := b.StackExists(ctx, stack); err != nil || ok {
		t.Fatalf("StackExists of an empty backend = %v, %v", ok, err)
	}
	commit(t, b, project, "prod", statetest.Snapshot(project, "prod", 1))
	commit(t, b, "app", stack, statetest.Snapshot("app", stack, 1))
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 1))
	l, err := b.Lock(ctx, "db", stack, backend.CurrentLockInfo("runner up")) // locked, no state yet
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	stacks, err := b.ListStacks(ctx)
	if err != nil || fmt.Sprint(stacks) != "[{dev [app network]} {prod [network]}]" {
		t.Fatalf("ListStacks = %v, %v", stacks, err)
	}
	if ps, err := b.Projects(ctx, stack); err != nil || fmt.Sprint(ps) != "[app network]" {
		t.Fatalf("Projects = %v, %v", ps, err)
	}
	if ps, err := b.Projects(ctx, "qa"); err != nil || len(ps) != 0 {
		t.Fatalf("Projects of a stack without state = %v, %v", ps, err)
	}
	for s, want := range map[string]bool{stack: true, "prod": true, "qa": false} {
		if ok, err := b.StackExists(ctx, s); err != nil || ok != want {
			t.Fatalf("StackExists(%s) = %v, %v, want %v", s, ok, err, want)
		}
	}
	if _, err := b.Summary(ctx, "db", stack); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("Summary of a project without state = %v, want ErrNotFound", err)
	}
	sum, err := b.Summary(ctx, "app", stack)
	if err != nil || sum.Resources != 3 || sum.Pending != 0 || sum.Interrupted || sum.LastUpdate == nil || sum.Locked != nil {
		t.Fatalf("Summary = %+v, %v", sum, err)
	}
}

func testRemoval(t *testing.T, b backend.Store) {
	ctx := context.Background()
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 2))
	commit(t, b, "app", stack, rootOnly("app", stack))
	if err := b.SetTag(ctx, stack, "owner", "ann"); err != nil {
		t.Fatal(err)
	}
	err := b.RemoveStack(ctx, project, stack, false)
	if err == nil || !strings.Contains(err.Error(), "manages 3 resources") {
		t.Fatalf("RemoveStack of a project with resources = %v, want a refusal counting them", err)
	}
	l, err := b.Lock(ctx, "app", stack, backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	lockedErr(t, b.RemoveStack(ctx, "app", stack, false))
	l.Unlock()
	if err := b.RemoveStack(ctx, "app", stack, false); err != nil {
		t.Fatalf("RemoveStack of a project with only its root stack: %v", err)
	}
	if ps, _ := b.Projects(ctx, stack); fmt.Sprint(ps) != "[network]" {
		t.Fatalf("Projects after removing app = %v", ps)
	}
	if tags, _ := b.Tags(ctx, stack); tags["owner"] != "ann" {
		t.Fatalf("the tags went while a project was left: %v", tags)
	}
	if err := b.RemoveStack(ctx, project, stack, true); err != nil {
		t.Fatal(err)
	}
	if snap := load(t, b, project, stack); snap != nil {
		t.Fatalf("Load after RemoveStack = %v", urns(snap))
	}
	if tags, _ := b.Tags(ctx, stack); len(tags) != 0 {
		t.Fatalf("tags left after the last project went: %v", tags)
	}
	if h, _ := b.History(ctx, stack, ""); len(h) != 0 {
		t.Fatalf("history left after the last project went: %v", h)
	}
	if ok, err := b.StackExists(ctx, stack); err != nil || ok {
		t.Fatalf("StackExists after removal = %v, %v", ok, err)
	}
}

// rootOnly is a snapshot holding only the root stack resource.
func rootOnly(p, s string) *state.Snapshot {
	snap := statetest.Snapshot(p, s, 0)
	snap.Resources = snap.Resources[:1]
	return snap
}

func testImportExport(t *testing.T, b backend.Store) {
	ctx := context.Background()
	if _, err := b.Export(ctx, project, stack); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("Export without state = %v, want ErrNotFound", err)
	}
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 2))
	data, err := b.Export(ctx, project, stack)
	if err != nil {
		t.Fatal(err)
	}
	other := statetest.NewCrypter(9)
	if err := b.Import(ctx, project, stack, data, other); err == nil {
		t.Fatal("Import took secrets that do not open with its crypter")
	}
	if err := b.Import(ctx, "app", stack, data, crypter); err == nil {
		t.Fatal("Import took the state of another project")
	}
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 4))
	if err := b.Import(ctx, project, stack, data, crypter); err != nil {
		t.Fatal(err)
	}
	got := load(t, b, project, stack)
	if find(got, "r00001") == nil || find(got, "r00003") != nil {
		t.Fatalf("after the import: %v", urns(got))
	}
	if h, err := b.History(ctx, stack, project); err != nil || len(h) == 0 || h[0].Kind != "import" {
		t.Fatalf("History after the import = %+v, %v", h, err)
	}
}

func testRepair(t *testing.T, b backend.Store) {
	ctx := context.Background()
	base := statetest.Snapshot(project, stack, 1)
	commit(t, b, project, stack, base)
	l, j := openJournal(t, b, nil)
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Op: "create", New: thing(4)}); err != nil {
		t.Fatal(err)
	}
	l.Unlock() // crash
	changes, err := b.Repair(ctx, project, stack, crypter)
	if err != nil || len(changes) == 0 || !strings.Contains(strings.Join(changes, "\n"), "cleared the pending operation creating") {
		t.Fatalf("Repair = %q, %v", changes, err)
	}
	got := load(t, b, project, stack)
	if len(got.PendingOperations) != 0 || find(got, "r00000") == nil {
		t.Fatalf("after the repair: %v, pending %v", urns(got), got.PendingOperations)
	}
	if changes, err := b.Repair(ctx, project, stack, crypter); err != nil || len(changes) != 0 {
		t.Fatalf("a second Repair = %q, %v, want no change", changes, err)
	}
}
