package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

const (
	project = "proj"
	stack   = "dev"
	typ     = plugintest.Type
)

// env is one test's engine setup: an in-memory backend and test plugin.
type env struct {
	t       *testing.T
	backend *plugintest.Backend
	plugin  *plugintest.Plugin
	opts    engine.Options

	mu     sync.Mutex
	events []engine.Event
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, backend: plugintest.NewBackend(), plugin: &plugintest.Plugin{}}
	e.opts = engine.Options{
		Project: project, Stack: stack, Backend: e.backend,
		Plugins: []resource.Plugin{e.plugin},
		Events: func(ev engine.Event) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.events = append(e.events, ev)
		},
	}
	return e
}

func (e *env) up(prog engine.Program) (*engine.Result, error) {
	return engine.Up(context.Background(), e.opts, prog)
}

func (e *env) mustUp(prog engine.Program) *engine.Result {
	e.t.Helper()
	res, err := e.up(prog)
	if err != nil {
		e.t.Fatalf("up: %v", err)
	}
	return res
}

func (e *env) preview(prog engine.Program) (*engine.Result, error) {
	return engine.Preview(context.Background(), e.opts, prog)
}

func (e *env) snap() *state.Snapshot { return e.backend.Get(project, stack) }

// find returns the live record of the resource named name.
func (e *env) find(name string) *state.Resource {
	snap := e.snap()
	if snap == nil {
		return nil
	}
	for _, r := range snap.Resources {
		if r.URN.Name() == name && !r.Delete {
			return r
		}
	}
	return nil
}

func urn(name string) resource.URN {
	return resource.NewURN(stack, project, "", typ, name)
}

// resources declares plain resources, each named after its key.
func resources(inputs map[string]engine.Inputs, opts ...engine.ResourceOption) engine.Program {
	return func(ctx *engine.Context) error {
		for name, in := range inputs {
			ctx.Resource(typ, name, in, opts...)
		}
		return nil
	}
}

// checkOrder fails unless every resource in the snapshot comes after the
// resources it depends on and its parent.
func checkOrder(t *testing.T, snap *state.Snapshot) {
	t.Helper()
	seen := map[resource.URN]bool{}
	for _, r := range snap.Resources {
		for _, d := range append([]resource.URN{r.Parent}, r.Dependencies...) {
			if d != "" && !seen[d] {
				t.Errorf("%s comes before %s, which it depends on", r.URN, d)
			}
		}
		seen[r.URN] = true
	}
}
