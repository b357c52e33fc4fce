package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// deployment is one operation on one (project, stack): its run state, the
// journal its steps write, and the bound on the steps in flight.
type deployment struct {
	*runstate.State
	opts    *Options
	journal backend.Journal // opened by the first step that writes (openJournal)
	// journalOnce opens the journal; journalErr is why it could not.
	journalOnce sync.Once
	journalErr  error
	seq         atomic.Int64
	// leases are the locks confirmed before every step's plugin call: the
	// caller's (Options.Held) and the operation's own.
	leases []backend.Lock
	sem    chan struct{} // bounds the steps in flight (nil: the source does)
	// workCtx is the context of the steps: the operation's without its
	// cancellation, so that steps in flight finish.
	workCtx context.Context
	// runCtx is the operation's own context: a step that has not called
	// its plugin yet waits on no lease renewal once it ends (Ctrl-C).
	runCtx context.Context
	// covered says the plan's coverage was checked up front (Preflight).
	covered bool
}

func newDeployment(opts *Options, kind string) *deployment {
	return &deployment{
		State: runstate.New(runstate.Config{
			Project: opts.Project, Stack: opts.Stack, Kind: kind, Config: opts.Config,
			Plugins: opts.Plugins, LoadPlugin: opts.LoadPlugin, Events: opts.Events, Plan: opts.Plan,
		}),
		opts: opts,
		sem:  make(chan struct{}, opts.parallel()),
	}
}

// snapshot builds the current state (runstate.State.Snapshot).
func (d *deployment) snapshot() *state.Snapshot {
	return d.Snapshot(d.opts.SecretsProvider, d.opts.engineVersion())
}

// begin journals the start of a mutating step (not during preview), its
// plugin call to follow at once. The locks the step runs under are
// confirmed before and after the journal write (which may be slow, and
// the process stopped within it): a step whose locks are not proven its
// own does not start, and its begun entry is ended as failed.
func (d *deployment) begin(ctx context.Context, op Op, old, new *state.Resource) (int64, error) {
	if d.DryRun {
		return 0, nil
	}
	if err := d.confirmLeases(d.confirmCtx(ctx)); err != nil {
		return 0, err
	}
	if err := d.openJournal(ctx); err != nil {
		return 0, err
	}
	seq := d.seq.Add(1)
	err := d.journal.Begin(ctx, backend.Entry{Seq: seq, Kind: backend.EntryBegin, Op: string(op), Old: old, New: new})
	if err != nil {
		return 0, fmt.Errorf("recording the start of the step in the journal: %w", err)
	}
	if err := d.confirmLeases(d.confirmCtx(ctx)); err != nil {
		return 0, errors.Join(err, d.end(context.WithoutCancel(ctx), seq, false, op, old, nil))
	}
	return seq, nil
}

// confirmCtx is the context a step's lease confirmation honours: the
// operation's, which Ctrl-C ends, rather than the step's own ctx (which
// lets steps in flight finish).
func (d *deployment) confirmCtx(ctx context.Context) context.Context {
	if d.runCtx != nil {
		return d.runCtx
	}
	return ctx
}

// confirmLeases proves that every lock the operation runs under is still
// its own (backend.Lock.Confirm).
func (d *deployment) confirmLeases(ctx context.Context) error {
	for _, l := range d.leases {
		if err := l.Confirm(ctx); err != nil {
			return fmt.Errorf("the step was not started: %w", err)
		}
	}
	return nil
}

// end journals the outcome of a mutating step.
func (d *deployment) end(ctx context.Context, seq int64, ok bool, op Op, old, new *state.Resource) error {
	if d.journal == nil {
		return nil
	}
	kind := backend.EntrySuccess
	if !ok {
		kind = backend.EntryFailure
	}
	err := d.journal.End(ctx, backend.Entry{Seq: seq, Kind: kind, Op: string(op), Old: old, New: new})
	if err != nil {
		return fmt.Errorf("recording the end of the step in the journal: %w", err)
	}
	return nil
}

// journalPlain journals, as one step begun and ended, a record that no
// plugin makes (the root stack, a component, a default provider), so that
// the journal holds it before any record that refers to it.
func (d *deployment) journalPlain(ctx context.Context, op Op, old, new *state.Resource) error {
	seq, err := d.begin(ctx, op, old, new)
	if err != nil {
		return err
	}
	return d.end(ctx, seq, true, op, old, new)
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
