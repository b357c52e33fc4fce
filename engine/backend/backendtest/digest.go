package backendtest

import (
	"context"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// testStateDigest checks that the digest a plan records is "" for a project
// never deployed, stays the same while nothing is written (loads included)
// and changes with every write that changes what is stored: a commit, a
// journal entry, an import. (A backend may name content: state written
// back to what it was may get its former digest again.)
func testStateDigest(t *testing.T, b backend.Store) {
	ctx := context.Background()
	digest := func() string {
		t.Helper()
		d, err := b.StateDigest(ctx, project, stack)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := digest(); d != "" {
		t.Fatalf("digest of a project never deployed = %q, want \"\"", d)
	}
	prev, prevWhat := "", "nothing"
	changed := func(what string) {
		t.Helper()
		d := digest()
		if d == "" || d == prev {
			t.Fatalf("after %s the digest is %q, as after %s", what, d, prevWhat)
		}
		prev, prevWhat = d, what
		load(t, b, project, stack)
		if again := digest(); again != d {
			t.Fatalf("a load after %s changed the digest", what)
		}
	}
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 1))
	changed("the first commit")
	commit(t, b, project, stack, statetest.Snapshot(project, stack, 2))
	changed("a second commit")
	l, j := openJournal(t, b, nil)
	if err := j.Begin(ctx, backend.Entry{Seq: 1, Op: "create", New: thing(9)}); err != nil {
		t.Fatal(err)
	}
	changed("a journal entry")
	l.Unlock()
	data, err := b.Export(ctx, project, stack)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Import(ctx, project, stack, data, crypter); err != nil {
		t.Fatal(err)
	}
	changed("an import")
}
