package stepexec

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/state"
)

// begin journals the start of a mutating step (not during preview), its
// plugin call to follow at once. The locks the step runs under are
// confirmed before and after the journal write (which may be slow, and
// the process stopped within it): a step whose locks are not proven its
// own does not start, and its begun entry is ended as failed.
func (d *Executor) begin(ctx context.Context, op plan.Op, old, new *state.Resource) (int64, error) {
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

// confirmLeases proves that every lock the operation runs under is still
// its own (backend.Lock.Confirm).
func (d *Executor) confirmLeases(ctx context.Context) error {
	for _, l := range d.Leases {
		if err := l.Confirm(ctx); err != nil {
			return fmt.Errorf("the step was not started: %w", err)
		}
	}
	return nil
}

// confirmCtx is the context a step's lease confirmation honours: the
// operation's (RunCtx), which Ctrl-C ends, rather than the step's own ctx.
func (d *Executor) confirmCtx(ctx context.Context) context.Context {
	if d.RunCtx != nil {
		return d.RunCtx
	}
	return ctx
}

// confirmForCommit proves the operation's locks its own before its commit
// (which the backend fences by them too) under ctx, the run's: a run
// interrupted while a renewal is pending does not wait on the store.
// Leases renewed recently cost no request. Other failures are left to the
// commit, which refuses (ErrFenced) or retries itself.
func (d *Executor) confirmForCommit(ctx context.Context) error {
	for _, l := range d.Leases {
		if err := l.Confirm(ctx); err != nil && ctx.Err() != nil && !errors.Is(err, backend.ErrLockLost) {
			return fmt.Errorf("nothing was committed (the journal keeps every step, and the next run folds it in): %w", err)
		}
	}
	return nil
}

// end journals the outcome of a mutating step.
func (d *Executor) end(ctx context.Context, seq int64, ok bool, op plan.Op, old, new *state.Resource) error {
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

// JournalPlain journals, as one step begun and ended, a record that no
// plugin makes (the root stack, a component, a default provider), so that
// the journal holds it before any record that refers to it.
func (d *Executor) JournalPlain(ctx context.Context, op plan.Op, old, new *state.Resource) error {
	seq, err := d.begin(ctx, op, old, new)
	if err != nil {
		return err
	}
	return d.end(ctx, seq, true, op, old, new)
}
