// Package stepexec is the engine's step executor: it runs the steps the
// step generator (engine/stepgen) decided, on the operation's run state
// (engine/runstate), and decides none. Every mutating step is journaled
// before and after its plugin call (Executor's journal, after the locks
// the operation runs under are confirmed), and its record joins the
// snapshot that Commit writes at the end; a registration is answered with
// the record's ID and outputs. It also holds what runs on recorded
// resources alone: deletes, refresh reads and the recovery of operations
// an interrupted run left pending, and the helpers that need no run state
// (custom timeouts, gone resources, secret outputs).
package stepexec

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// Executor runs the steps of one operation on its run state and writes
// its journal.
type Executor struct {
	*runstate.State
	backend backend.Backend
	crypter resource.Crypter
	journal backend.Journal // opened by the first step that writes (openJournal)
	// journalOnce opens the journal; journalErr is why it could not.
	journalOnce sync.Once
	journalErr  error
	seq         atomic.Int64
	// Leases are the locks confirmed before every step's plugin call: the
	// caller's and the operation's own.
	Leases []backend.Lock
	// RunCtx is the operation's own context (nil: each call's): the
	// confirmations of Leases honour it, so that Ctrl-C waits on no lease
	// renewal, where a step's own context lets steps in flight finish.
	RunCtx context.Context
	// InProgress is the holder of the project's lock when a preview reads
	// the journal of a run that still runs (nil otherwise): its pending
	// operations are in progress, not interrupted.
	InProgress *backend.LockInfo
}

// New returns the executor of the operation whose state is st, journaling
// into b (secrets sealed by c).
func New(st *runstate.State, b backend.Backend, c resource.Crypter) *Executor {
	return &Executor{State: st, backend: b, crypter: c}
}

// openJournal opens the journal the first time a step writes to it.
func (d *Executor) openJournal(ctx context.Context) error {
	d.journalOnce.Do(func() {
		j, err := d.backend.OpenJournal(ctx, d.Project, d.Stack, d.Old, d.crypter)
		if err != nil {
			d.journalErr = fmt.Errorf("opening the journal: %w", err)
			return
		}
		d.journal = j
	})
	return d.journalErr
}

// Journaled reports whether a step opened the journal.
func (d *Executor) Journaled() bool { return d.journal != nil }

// Commit writes the snapshot snap and the history record rec: the
// journal's commit, which the backend makes atomic. It is made after
// Ctrl-C (ctx ended) too, unless a lease must be renewed first: an
// interrupted run waits on no renewal, and commits nothing (the journal
// keeps every step; the next run folds it in).
func (d *Executor) Commit(ctx context.Context, snap *state.Snapshot, rec backend.HistoryRecord) error {
	if err := d.confirmForCommit(ctx); err != nil {
		return err
	}
	if err := d.openJournal(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	return d.journal.Commit(context.WithoutCancel(ctx), snap, rec)
}
