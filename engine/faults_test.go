package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// failAt fails state writes of the folder backend: the write numbered at
// (counting from 1), and with sticky every write after it too (a full disk).
// A failing journal write leaves half its bytes, as a cut-short write does.
type failAt struct {
	at     int
	sticky bool

	mu     sync.Mutex
	n      int
	failed []backend.WriteKind
}

var errDiskFull = errors.New("no space left on device (injected)")

func (f *failAt) Write(kind backend.WriteKind, _ string, size int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n == f.at || (f.sticky && f.n > f.at) {
		f.failed = append(f.failed, kind)
		return size / 2, errDiskFull
	}
	return 0, nil
}

func (f *failAt) injected() []backend.WriteKind {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// faultProgram is a first up with everything the engine records: the root
// stack, a component with children, default providers of two packages,
// dependencies between resources and a stack output.
func faultProgram(ctx *engine.Context) error {
	comp := ctx.Component("test:index:Group", "group")
	a := ctx.Resource(typ, "a", engine.Inputs{"n": 1}, engine.Parent(comp))
	b := ctx.Resource("other:index:Thing", "b", engine.Inputs{"from": a.Output("result")}, engine.Parent(comp))
	var last *engine.Resource
	for i := range 6 {
		in := engine.Inputs{"i": i, "b": b.Output("result")}
		if last != nil {
			in["prev"] = last.Output("result")
		}
		last = ctx.Resource(typ, fmt.Sprintf("r%d", i), in)
	}
	ctx.Resource("other:index:Thing", "c", engine.Inputs{"x": 1}, engine.DependsOn(last))
	ctx.Export("last", last.Output("result"))
	return nil
}

// TestFirstUpSurvivesEveryFailedWrite fails the Nth state write of a first
// up, for every N (once, and from then on, as a full disk does). Each time
// the next preview, up and destroy, on a backend without faults, succeed,
// and no resource is created twice.
func TestFirstUpSurvivesEveryFailedWrite(t *testing.T) {
	for _, sticky := range []bool{false, true} {
		for n := 1; ; n++ {
			faults := &failAt{at: n, sticky: sticky}
			t.Run(fmt.Sprintf("write%d/sticky=%v", n, sticky), func(t *testing.T) {
				firstUpWithFault(t, faults)
			})
			if t.Failed() {
				return
			}
			if len(faults.injected()) == 0 {
				if n < 5 {
					t.Fatalf("a first up made only %d state writes", n-1)
				}
				break
			}
		}
	}
}

func firstUpWithFault(t *testing.T, faults *failAt) {
	ctx := context.Background()
	dir := t.TempDir()
	test, other := &plugintest.Plugin{}, &plugintest.Plugin{Pkg: "other"}
	opts := engine.Options{
		Project: project, Stack: stack, Crypter: statetest.NewCrypter(5),
		Plugins: []resource.Plugin{test, other}, Parallel: 3,
	}
	faulty, err := backend.Open("file://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	faulty.Faults = faults
	opts.Backend = faulty
	_, upErr := engine.Up(ctx, opts, faultProgram)
	if len(faults.injected()) > 0 && upErr == nil {
		t.Errorf("up succeeded although the %s write failed", faults.injected()[0])
	}

	// A new process: a fresh backend on the same folder, no faults.
	if opts.Backend, err = backend.Open("file://" + dir); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Preview(ctx, opts, faultProgram); err != nil {
		t.Fatalf("preview after a failed %v write (up: %v): %v", faults.injected(), upErr, err)
	}
	if _, err := engine.Up(ctx, opts, faultProgram); err != nil {
		t.Fatalf("up after a failed %v write (up: %v): %v", faults.injected(), upErr, err)
	}
	for _, p := range []*plugintest.Plugin{test, other} {
		if creates, live := p.Count("Create"), len(p.URNs()); creates != live {
			t.Errorf("package %s: %d creates for %d resources: something was created twice", p.Package(), creates, live)
		}
	}
	if got := len(test.URNs()) + len(other.URNs()); got != 9 {
		t.Errorf("%d resources exist, want 9", got)
	}
	snap, err := opts.Backend.Load(ctx, project, stack, opts.Crypter)
	if err != nil {
		t.Fatal(err)
	}
	if custom := countCustom(snap.Resources); custom != 9+2 || len(snap.PendingOperations) != 0 {
		t.Errorf("the state holds %d custom resources (want 9 and 2 providers) and %d pending operations", custom, len(snap.PendingOperations))
	}
	if _, err := engine.Destroy(ctx, opts); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if left := append(test.URNs(), other.URNs()...); len(left) != 0 {
		t.Errorf("destroy left %v", left)
	}
}

func countCustom(list []*state.Resource) int {
	n := 0
	for _, r := range list {
		if r.Custom {
			n++
		}
	}
	return n
}

// TestJournalRefersOnlyBackwards checks the order the engine journals a
// first up in: every record a successful step journals refers (parent,
// provider, dependencies) only to records journaled before it, the root
// stack and the default providers included, so that a journal cut after
// any entry folds into a consistent state without repair.
func TestJournalRefersOnlyBackwards(t *testing.T) {
	e := newEnv(t)
	other := &plugintest.Plugin{Pkg: "other"}
	e.opts.Plugins = append(e.opts.Plugins, other)
	e.mustUp(faultProgram)
	journaled := map[resource.URN]bool{}
	for _, entry := range e.backend.Entries(project, stack) {
		if entry.Kind != backend.EntrySuccess || entry.New == nil {
			continue
		}
		r := entry.New
		refs := append([]resource.URN{r.Parent, state.ProviderURN(r.Provider)}, r.Dependencies...)
		for _, deps := range r.PropertyDependencies {
			refs = append(refs, deps...)
		}
		for _, ref := range refs {
			if ref != "" && !journaled[ref] {
				t.Errorf("%s is journaled before %s, which it refers to", r.URN, ref)
			}
		}
		journaled[r.URN] = true
	}
	if len(journaled) != 1+1+2+9 {
		t.Errorf("%d records journaled, want the root, the component, 2 providers and 9 resources", len(journaled))
	}
}
