package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// declarative is a hosted program that says it runs no code of its own
// (source.Declarative), lists its packages only once its run has started,
// and is gated (source.Gated) on gate.
type declarative struct {
	hostedFunc
	declared bool
	started  chan struct{} // closed when Run starts
	gate     func(context.Context) error
}

func (p declarative) Declarative() bool { return p.declared }

func (p declarative) Run(ctx context.Context, req source.RunRequest) error {
	close(p.started)
	return p.hostedFunc.Run(ctx, req)
}

// RequiredPackages waits for the run to start when the program is
// declarative (it must start first), and answers at once otherwise.
func (p declarative) RequiredPackages(ctx context.Context, _ source.RunRequest) ([]source.Package, error) {
	if !p.declared {
		return nil, nil
	}
	select {
	case <-p.started:
		return nil, nil
	case <-time.After(10 * time.Second):
		return nil, errors.New("the declarative program did not start before its packages were listed")
	}
}

func (p declarative) Gate(ctx context.Context) error { return p.gate(ctx) }

// TestHostedDeclarativeStartsBeforeTheChecks checks that a declarative
// program starts while its packages are listed and its gate (the
// passphrase check) is passed, its registrations waiting for both; that
// a failing gate stops it with the gate's error and changes nothing; and
// that any other program starts only after the checks.
func TestHostedDeclarativeStartsBeforeTheChecks(t *testing.T) {
	e := newHostedEnv(t)
	var opened atomic.Bool
	var registeredEarly atomic.Bool
	gateOpens := func(ctx context.Context) error {
		time.Sleep(50 * time.Millisecond)
		opened.Store(true)
		return nil
	}
	prog := func(gate func(context.Context) error, declared bool, n float64) declarative {
		return declarative{declared: declared, started: make(chan struct{}), gate: gate, hostedFunc: func(ctx context.Context, c *client) error {
			if !declared && !opened.Load() {
				return errors.New("the program started before its gate opened")
			}
			err := registers(nil, custom("a", resource.PropertyMap{"n": n}))(ctx, c)
			if !opened.Load() {
				registeredEarly.Store(true)
			}
			return err
		}}
	}
	if _, err := e.hosted(engine.Up, prog(gateOpens, true, 1)); err != nil || registeredEarly.Load() {
		t.Fatalf("up: %v; a registration answered before the gate opened: %v", err, registeredEarly.Load())
	}
	if e.plugin.Count("Create") != 1 {
		t.Fatalf("%d creates, want 1", e.plugin.Count("Create"))
	}

	wrong := errors.New("incorrect passphrase")
	res, err := e.hosted(engine.Up, prog(func(context.Context) error { time.Sleep(50 * time.Millisecond); return wrong }, true, 2))
	if !errors.Is(err, wrong) || res.Changes[engine.OpUpdate] != 0 {
		t.Fatalf("up with a failing gate: %v, changes %v; want the gate's error and no change", err, res.Changes)
	}
	if e.plugin.Count("Create")+e.plugin.Count("Update") != 1 {
		t.Fatalf("a program whose gate failed changed something: %d creates, %d updates", e.plugin.Count("Create"), e.plugin.Count("Update"))
	}

	opened.Store(false)
	if _, err := e.hosted(engine.Up, prog(gateOpens, false, 3)); err != nil {
		t.Fatalf("up of a program that is not declarative: %v", err)
	}
	if e.plugin.Count("Update") != 1 {
		t.Fatalf("%d updates, want 1", e.plugin.Count("Update"))
	}
}
