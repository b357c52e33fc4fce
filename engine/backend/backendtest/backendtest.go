// Package backendtest is the conformance suite every backend.Store passes:
// the folder backend, the in-memory one, S3 and PostgreSQL.
// A backend's own tests call Run with a constructor of empty backends.
package backendtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// Open returns a new, empty backend for one test.
type Open func(t *testing.T) backend.Store

// Run runs every conformance test against the backends open makes.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		run  func(*testing.T, backend.Store)
	}{
		{"RoundTripWithSecrets", testRoundTrip},
		{"JournalCommit", testJournalCommit},
		{"CrashFold", testCrashFold},
		{"ExplicitBase", testExplicitBase},
		{"LockExclusive", testLockExclusive},
		{"LockStale", testLockStale},
		{"LockTakeoverRace", testLockTakeoverRace},
		{"LockStackWide", testLockStackWide},
		{"History", testHistory},
		{"Tags", testTags},
		{"Listing", testListing},
		{"Removal", testRemoval},
		{"ImportExport", testImportExport},
		{"Repair", testRepair},
		{"StateDigest", testStateDigest},
		{"LockRace", testLockRace},
		{"LeaseExpiry", testLeaseExpiry},
		{"LockLost", testLockLost},
		{"LeaseConfirm", testLeaseConfirm},
		{"CommitFenced", testCommitFenced},
		{"NoopRecordsOnlyTheStack", testNoopRecordsOnlyTheStack},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, open(t)) })
	}
}

const (
	project = "network"
	stack   = "dev"
)

var crypter = statetest.NewCrypter(7)

// commit writes snap as the (p, s) state through a journal, as an
// operation does, recording an "update" history entry.
func commit(t *testing.T, b backend.Store, p, s string, snap *state.Snapshot) {
	t.Helper()
	ctx := context.Background()
	l, err := b.Lock(ctx, p, s, backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	base, err := b.Load(ctx, p, s, crypter)
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.OpenJournal(ctx, p, s, base, crypter)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := j.Commit(ctx, snap, backend.HistoryRecord{Kind: "update", Result: "succeeded", StartTime: now, EndTime: now}); err != nil {
		t.Fatal(err)
	}
}

// openJournal locks (project, stack) as an operation does and opens a
// journal on base (nil: the state as loaded now).
func openJournal(t *testing.T, b backend.Store, base *state.Snapshot) (backend.Lock, backend.Journal) {
	t.Helper()
	ctx := context.Background()
	l, err := b.Lock(ctx, project, stack, backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	if base == nil {
		base = load(t, b, project, stack)
	}
	j, err := b.OpenJournal(ctx, project, stack, base, crypter)
	if err != nil {
		t.Fatal(err)
	}
	return l, j
}

func load(t *testing.T, b backend.Store, p, s string) *state.Snapshot {
	t.Helper()
	snap, err := b.Load(context.Background(), p, s, crypter)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// urns lists the URNs of snap's resources (with "(deleted)" for condemned
// ones) in order.
func urns(snap *state.Snapshot) []string {
	var out []string
	for _, r := range snap.Resources {
		u := string(r.URN)
		if r.Delete {
			u += " (deleted)"
		}
		out = append(out, u)
	}
	return out
}

func find(snap *state.Snapshot, name string) *state.Resource {
	for _, r := range snap.Resources {
		if r.URN.Name() == name && !r.Delete {
			return r
		}
	}
	return nil
}

func testRoundTrip(t *testing.T, b backend.Store) {
	ctx := context.Background()
	if snap := load(t, b, project, stack); snap != nil {
		t.Fatalf("Load of a project never deployed = %v, want nil", urns(snap))
	}
	want := statetest.Snapshot(project, stack, 3)
	commit(t, b, project, stack, want)
	got := load(t, b, project, stack)
	if fmt.Sprint(urns(got)) != fmt.Sprint(urns(want)) {
		t.Fatalf("resources = %v\nwant        %v", urns(got), urns(want))
	}
	r := find(got, "r00001")
	if r == nil || r.Inputs["password"] != (resource.Secret{Element: "pw-r00001"}) || r.ID != "id-r00001" {
		t.Fatalf("r00001 = %+v, want its secret input back", r)
	}
	outs, err := b.Outputs(ctx, project, stack, crypter)
	if err != nil || outs["token"] != (resource.Secret{Element: "s3cr3t"}) || outs["endpoint"] != "https://example.test" {
		t.Fatalf("Outputs = %v, %v", outs, err)
	}
	data, err := b.Export(ctx, project, stack)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"s3cr3t", "pw-r00001"} {
		if strings.Contains(string(data), plain) {
			t.Fatalf("the export holds the secret %q in plain text", plain)
		}
	}
	secrets, err := b.StackSecrets(ctx, stack)
	if err != nil || len(secrets) != 1 || !secrets[0].HasSecrets || secrets[0].Project != project || secrets[0].Salt() == "" {
		t.Fatalf("StackSecrets = %+v, %v", secrets, err)
	}
	if _, err := b.Outputs(ctx, "app", stack, crypter); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("Outputs of a project without state = %v, want ErrNotFound", err)
	}
}

func testJournalCommit(t *testing.T, b backend.Store) {
	ctx := context.Background()
	base := statetest.Snapshot(project, stack, 1)
	commit(t, b, project, stack, base)
	l, j := openJournal(t, b, nil)
	defer l.Unlock()
	r1 := thing(1)
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Op: "create", New: r1}); err != nil {
		t.Fatal(err)
	}
	if err := j.End(ctx, backend.Entry{Seq: 1, Kind: backend.EntryBegin, Op: "create", New: r1}); err == nil {
		t.Fatal("End accepted a begin entry")
	}
	if err := j.End(ctx, backend.Entry{Seq: 1, Kind: backend.EntrySuccess, Op: "create", New: r1}); err != nil {
		t.Fatal(err)
	}
	final := statetest.Snapshot(project, stack, 2)
	if err := j.Commit(ctx, final, backend.HistoryRecord{Kind: "update", Result: "succeeded", Changes: map[string]int{"create": 1}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Begin(ctx, backend.Entry{Seq: 2, Op: "create", New: r1}); err == nil {
		t.Fatal("a committed journal took another entry")
	}
	if got := load(t, b, project, stack); fmt.Sprint(urns(got)) != fmt.Sprint(urns(final)) || len(got.PendingOperations) != 0 {
		t.Fatalf("after the commit: %v (pending %v), want %v", urns(got), got.PendingOperations, urns(final))
	}
	sum, err := b.Summary(ctx, project, stack)
	if err != nil || sum.Resources != len(final.Resources) || sum.Interrupted || sum.LastUpdate == nil || sum.LastUpdate.Changes["create"] != 1 {
		t.Fatalf("Summary = %+v, %v", sum, err)
	}
}

// thing is the i-th resource of statetest.Snapshot with its parent and
// provider, ready to add to it.
func thing(i int) *state.Resource {
	snap := statetest.Snapshot(project, stack, i+1)
	r := snap.Resources[len(snap.Resources)-1]
	r.Dependencies, r.PropertyDependencies = nil, nil
	return r
}

// testCrashFold journals steps of every outcome and loads without a
// commit, as after a crash: finished steps are applied, failed ones not,
// and begun ones are pending operations in the order they began.
func testCrashFold(t *testing.T, b backend.Store) {
	ctx := context.Background()
	base := statetest.Snapshot(project, stack, 2) // r00000, r00001
	commit(t, b, project, stack, base)
	l, j := openJournal(t, b, nil)
	old0, old1 := find(base, "r00000"), find(base, "r00001")
	new0 := *old0
	new0.Inputs = resource.PropertyMap{"name": "changed", "password": resource.Secret{Element: "pw-new"}}
	steps := []backend.Entry{
		{Seq: 1, Kind: backend.EntryBegin, Op: "create", New: thing(5)},
		{Seq: 2, Kind: backend.EntryBegin, Op: "update", Old: old0, New: &new0},
		{Seq: 1, Kind: backend.EntrySuccess, Op: "create", New: thing(5)},
		{Seq: 3, Kind: backend.EntryBegin, Op: "create", New: thing(6)},
		{Seq: 4, Kind: backend.EntryBegin, Op: "delete", Old: old1},
		{Seq: 5, Kind: backend.EntryBegin, Op: "create", New: thing(7)},
		{Seq: 5, Kind: backend.EntryFailure, Op: "create"},
	}
	for _, e := range steps {
		write := j.End
		if e.Kind == backend.EntryBegin {
			write = j.Begin
		}
		if err := write(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	l.Unlock() // the process dies: no commit
	got := load(t, b, project, stack)
	if find(got, "r00005") == nil || find(got, "r00007") != nil || find(got, "r00000").Inputs["name"] != "r00000" || find(got, "r00001") == nil {
		t.Fatalf("folded resources = %v", urns(got))
	}
	want := []string{"updating r00000", "creating r00006", "deleting r00001"}
	var ops []string
	for _, p := range got.PendingOperations {
		ops = append(ops, fmt.Sprintf("%s %s", p.Type, p.Resource.URN.Name()))
	}
	if fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Fatalf("pending operations = %v, want %v", ops, want)
	}
	if p := got.PendingOperations[0].Resource; p.Inputs["password"] != (resource.Secret{Element: "pw-new"}) {
		t.Fatalf("the pending update lost its secret: %v", p.Inputs)
	}
	if sum, err := b.Summary(ctx, project, stack); err != nil || !sum.Interrupted {
		t.Fatalf("Summary after a crash = %+v, %v, want Interrupted", sum, err)
	}
	if ps, err := b.Projects(ctx, stack); err != nil || fmt.Sprint(ps) != "[network]" {
		t.Fatalf("Projects = %v, %v", ps, err)
	}
	// The next operation resolves the pending operations and begins from
	// what it resolved.
	got.PendingOperations = nil
	recoverAndCommit(t, b, got)
	if again := load(t, b, project, stack); len(again.PendingOperations) != 0 || find(again, "r00005") == nil {
		t.Fatalf("after recovery: %v, pending %v", urns(again), again.PendingOperations)
	}
}

// recoverAndCommit opens a journal on base (not what is stored) and
// commits base unchanged.
func recoverAndCommit(t *testing.T, b backend.Store, base *state.Snapshot) {
	t.Helper()
	ctx := context.Background()
	l, j := openJournal(t, b, base)
	defer l.Unlock()
	if err := j.Commit(ctx, base, backend.HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
		t.Fatal(err)
	}
}

// testExplicitBase opens a journal on a base that is not the stored
// snapshot: a crash then folds the journal into that base, not into what
// was stored before.
func testExplicitBase(t *testing.T, b backend.Store) {
	ctx := context.Background()
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 1))
	base := statetest.Snapshot(project, stack, 3) // refreshed: two more resources
	l, j := openJournal(t, b, base)
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Op: "delete", Old: find(base, "r00002")}); err != nil {
		t.Fatal(err)
	}
	if err := j.End(ctx, backend.Entry{Seq: 1, Kind: backend.EntrySuccess, Op: "delete", Old: find(base, "r00002")}); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	got := load(t, b, project, stack)
	if find(got, "r00001") == nil || find(got, "r00002") != nil {
		t.Fatalf("the journal was not folded into its base: %v", urns(got))
	}
}
