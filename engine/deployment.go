package engine

import (
	"context"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepexec"
	"github.com/runnerhq/runner/engine/stepgen"
)

// deployment is one operation on one (project, stack): its run state, the
// step generator that decides on it, the step executor that runs the
// decided steps (and writes the journal), and the bound on the steps in
// flight.
type deployment struct {
	*runstate.State
	opts *Options
	gen  *stepgen.Generator
	exec *stepexec.Executor
	sem  chan struct{} // bounds the steps in flight (nil: the source does)
	// workCtx is the context of the steps: the operation's without its
	// cancellation, so that steps in flight finish.
	workCtx context.Context
	// covered says the plan's coverage was checked up front (Preflight).
	covered bool
}

func newDeployment(opts *Options, kind string) *deployment {
	builtin := &pulumiPackage{}
	st := runstate.New(runstate.Config{
		Project: opts.Project, Stack: opts.Stack, Kind: kind, Config: opts.Config,
		Plugins:    append(opts.Plugins[:len(opts.Plugins):len(opts.Plugins)], builtin),
		LoadPlugin: opts.LoadPlugin, LoadParameterized: opts.LoadParameterized, Events: opts.Events, Plan: opts.Plan,
	})
	d := &deployment{
		State: st,
		opts:  opts,
		gen:   &stepgen.Generator{State: st},
		exec:  stepexec.New(st, opts.Backend, opts.Crypter),
		sem:   make(chan struct{}, opts.parallel()),
	}
	builtin.d = d
	return d
}

// snapshot builds the current state (runstate.State.Snapshot).
func (d *deployment) snapshot() *state.Snapshot {
	return d.Snapshot(d.opts.SecretsProvider, d.opts.engineVersion())
}

// history builds the history record of the operation.
func (d *deployment) history(start time.Time, failed bool) backend.HistoryRecord {
	changes := make(map[string]int, len(d.Changes))
	for op, n := range d.Changes {
		changes[string(op)] = n
	}
	result := "succeeded"
	if failed {
		result = "failed"
	}
	return backend.HistoryRecord{
		Kind: d.Kind, Result: result, StartTime: start.UTC(), EndTime: time.Now().UTC(),
		Changes: changes, User: d.opts.Lock.User, Host: d.opts.Lock.Host,
	}
}

// result builds the operation's Result.
func (d *deployment) result(start time.Time, outputs resource.PropertyMap) *Result {
	if outputs == nil {
		outputs = resource.PropertyMap{}
	}
	return &Result{Changes: d.Changes, Outputs: outputs, Steps: d.Steps, Duration: time.Since(start)}
}
