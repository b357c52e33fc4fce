package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepgen"
)

// Every operation returns a non-nil Result, also with an error: the steps
// that ran before the failure.

// Preview runs the program (prog, or Options.Hosted) and plans its steps
// without side effects: plugins only predict outputs, nothing is journaled
// or saved, no lock is taken. Pending operations of an interrupted run are
// reported as events and resolved in memory, by reading their resources
// back, as Up resolves them.
func Preview(ctx context.Context, opts Options, prog Program) (*Result, error) {
	return operate(ctx, &opts, kindPreview, prog)
}

// Up runs the program (prog, or Options.Hosted) and brings the stack to
// what it registers.
func Up(ctx context.Context, opts Options, prog Program) (*Result, error) {
	return operate(ctx, &opts, kindUpdate, prog)
}

// Refresh reads every recorded resource back through its plugin and records
// drift and resources that no longer exist.
func Refresh(ctx context.Context, opts Options) (*Result, error) {
	return operate(ctx, &opts, kindRefresh, nil)
}

// Destroy deletes every recorded resource, dependents first.
func Destroy(ctx context.Context, opts Options) (*Result, error) {
	return operate(ctx, &opts, kindDestroy, nil)
}

// operate runs deploy and makes sure the Result is never nil.
func operate(ctx context.Context, opts *Options, kind string, prog Program) (*Result, error) {
	start := time.Now()
	var src source.Source
	switch {
	case kind != kindPreview && kind != kindUpdate:
	case opts.Hosted != nil:
		src = &hostedSource{hosted: opts.Hosted}
	case prog != nil:
		src = &source.Program{Prog: prog, Parallel: opts.parallel()}
	}
	res, err := deploy(ctx, opts, kind, src)
	if res == nil {
		res = &Result{Changes: map[Op]int{}, Outputs: resource.PropertyMap{}, Duration: time.Since(start)}
	}
	return res, err
}

// deploy runs one operation: lock, load, resolve pending operations, run
// the source (preview, up), execute the deletes, save.
func deploy(ctx context.Context, opts *Options, kind string, src source.Source) (res *Result, err error) {
	start := time.Now()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	d := newDeployment(opts, kind)
	if h, ok := src.(*hostedSource); ok && h.begin(ctx, d) == nil {
		h.req.StopLater = h.stopLater // the host stops while the state is saved
		defer h.end()                 // a failed begin is tried again, and reported, by Run
	}
	if !d.DryRun {
		lock, lerr := opts.Backend.Lock(ctx, opts.Project, opts.Stack, opts.Lock)
		if lerr != nil {
			return nil, fmt.Errorf("%s %s: locking stack %s: %w", kind, opts.Project, opts.Stack, lerr)
		}
		if dead := lock.Previous(); dead != nil {
			d.Events.Diag(SeverityWarning, backend.TakeoverWarning(fmt.Sprintf("stack %s of project %s", opts.Stack, opts.Project), *dead))
		}
		d.exec.Leases = append(append(d.exec.Leases, opts.Held...), lock)
		var stopWatch func()
		ctx, stopWatch = cancelOnLost(ctx, lock)
		defer stopWatch()
		defer func() {
			// A lock that is no longer ours (cleared and taken by another
			// process meanwhile) makes the operation's result doubtful.
			if uerr := lock.Unlock(); uerr != nil {
				err = errors.Join(err, fmt.Errorf("%s %s: releasing the lock of stack %s: %w", kind, opts.Project, opts.Stack, uerr))
			}
		}()
	}
	d.exec.RunCtx = ctx
	snap, base, err := d.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, opts.Project, err)
	}
	if snap == nil && src == nil {
		return d.result(start, nil), nil // refresh or destroy of a project never deployed: nothing to do
	}
	if err := d.prepare(ctx, snap); err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, opts.Project, err)
	}
	outputs, runErr := d.execute(ctx, src)
	runErr = d.withPluginCause(runErr)
	if !d.DryRun && (d.exec.Journaled() || !d.untouched()) {
		if err := d.exec.Commit(ctx, d.snapshot(), d.history(start, runErr != nil)); err != nil {
			runErr = errors.Join(runErr, &NotSavedError{Err: fmt.Errorf("saving the state: %w", err)})
		}
	}
	res = d.result(start, outputs)
	if runErr != nil {
		return res, fmt.Errorf("%s %s: %w", kind, opts.Project, runErr)
	}
	if d.DryRun && src != nil {
		res.Plan = &Plan{Project: opts.Project, Stack: opts.Stack, Base: base, Steps: d.Plan, Outputs: outputs}
	}
	return res, nil
}

// untouched reports whether the operation ended before its program
// registered anything (a program that failed to start, or was refused up
// front): then nothing is saved, not even a history record.
func (d *deployment) untouched() bool {
	if d.Kind != kindPreview && d.Kind != kindUpdate {
		return false
	}
	return d.NumRegistered() == 0
}

// load checks the plan Up executes against the stored state, then loads
// it. For a preview it also returns the digest of the state it loaded (the
// plan's base).
func (d *deployment) load(ctx context.Context) (*state.Snapshot, string, error) {
	if err := d.checkPlanBase(ctx); err != nil {
		return nil, "", err
	}
	var base string
	if d.DryRun {
		var err error
		if base, _, err = d.stateDigest(ctx); err != nil {
			return nil, "", err
		}
	}
	snap, err := d.opts.Backend.Load(ctx, d.opts.Project, d.opts.Stack, d.opts.Crypter)
	if err != nil {
		return nil, "", fmt.Errorf("loading the state of stack %s: %w", d.opts.Stack, err)
	}
	if snap == nil {
		err = d.leftBackup(ctx)
	}
	return snap, base, err
}

// leftBackup refuses to start a project with no checkpoint from no state
// while the backup of its last checkpoint lies beside it (a Pulumi CLI's
// `stack rm`); a preview warns.
func (d *deployment) leftBackup(ctx context.Context) error {
	lb, ok := d.opts.Backend.(backend.LeftBackups)
	if !ok {
		return nil
	}
	bak, err := lb.LeftBackup(ctx, d.opts.Project, d.opts.Stack)
	if err != nil || bak == "" {
		return err
	}
	left := &backend.LeftBackupError{Project: d.opts.Project, Stack: d.opts.Stack, Backup: bak}
	if d.DryRun {
		d.Events.Diag(SeverityWarning, "the preview plans from no state: "+left.Error())
		return nil
	}
	return left
}

// prepare installs the loaded state, resolves pending operations (in
// preview too, in memory only, so that it plans what up will do), and
// refreshes first when asked.
func (d *deployment) prepare(ctx context.Context, snap *state.Snapshot) error {
	d.SetOld(snap)
	if d.DryRun && snap != nil && len(snap.PendingOperations) > 0 {
		d.exec.InProgress = d.runningHolder(ctx)
	}
	if err := d.exec.RecoverPending(ctx); err != nil {
		if !d.DryRun {
			return err
		}
		// A preview (perhaps of a stack an up is changing right now) plans
		// on the state as recorded; up resolves or refuses it first.
		d.Events.Diag(SeverityWarning, fmt.Sprintf("the preview plans on the recorded state: %v", err))
	}
	if d.opts.Refresh && (d.Kind == kindPreview || d.Kind == kindUpdate) {
		return d.refreshFirst(ctx)
	}
	return nil
}

// runningHolder returns the holder of the project's lock when a run that
// still runs holds it (nil when none, or the backend cannot tell): a
// preview, which takes no lock, then reads that run's journal, whose
// operations are in progress rather than interrupted.
func (d *deployment) runningHolder(ctx context.Context) *backend.LockInfo {
	keeper, ok := d.opts.Backend.(backend.LockKeeper)
	if !ok {
		return nil
	}
	h, err := keeper.LockHolder(ctx, d.opts.Project, d.opts.Stack)
	if err != nil || h == nil || h.Stale() {
		return nil
	}
	return h
}

// execute runs the steps of the operation and returns the stack outputs:
// for preview and up, the source's registrations, then (once the program
// ended cleanly and every step succeeded) the deletes of what it did not
// register.
func (d *deployment) execute(ctx context.Context, src source.Source) (resource.PropertyMap, error) {
	switch d.Kind {
	case kindRefresh:
		return d.rootOutputs(), d.runTasks(ctx, d.planRefresh())
	case kindDestroy:
		return resource.PropertyMap{}, d.runDeletes(ctx, d.gen.CondemnedAll())
	}
	d.workCtx = context.WithoutCancel(ctx) // steps in flight finish when ctx ends
	switch s := src.(type) {
	case *source.Program:
		s.Env = d.programEnv(ctx)
	case *hostedSource:
		s.d = d
	}
	if err := d.sourceError(ctx, src.Run(ctx, d)); err != nil {
		return d.rootOutputs(), err
	}
	outputs, err := d.exports(ctx)
	if err != nil {
		return d.rootOutputs(), err
	}
	urns := d.RegisteredURNs()
	declared := make(map[resource.URN]bool, len(urns))
	for _, urn := range urns {
		declared[urn] = true
	}
	if !d.covered {
		if err := d.checkPlanCoverage(d.plannedReads(urns)); err != nil {
			return d.rootOutputs(), err
		}
	}
	return outputs, d.runDeletes(ctx, d.gen.CondemnedAfterUp(declared))
}

// plannedReads leaves out of urns the reads the plan being executed has no
// step for: a read whose ID was not known in the preview (the SDKs do not
// read then) changes nothing outside the state, so up may make it.
func (d *deployment) plannedReads(urns []resource.URN) []resource.URN {
	if d.Planned == nil {
		return urns
	}
	out := urns[:0:0]
	for _, urn := range urns {
		if dr := d.Registered(urn); dr == nil || dr.R.ReadID == "" || d.Planned.Has(urn) {
			out = append(out, urn)
		}
	}
	return out
}

// programEnv is what a compiled-in program's run gets.
func (d *deployment) programEnv(ctx context.Context) program.Env {
	return program.Env{
		Project: d.opts.Project, Stack: d.opts.Stack, DryRun: d.DryRun, Config: d.opts.Config,
		Log:          func(msg string) { d.Events.Diag(SeverityInfo, msg) },
		StackOutputs: stackOutputs(ctx, d.opts),
		Dir:          d.opts.Dir,
		Recorded:     d.recorded,
	}
}

// sourceError is the error of the source's run: the failed steps' errors
// (the program's own error, which usually repeats them, is then left out),
// else the program's error; and a cancellation.
func (d *deployment) sourceError(ctx context.Context, srcErr error) error {
	d.Mu.Lock()
	err := errors.Join(d.StepErrs...)
	d.Mu.Unlock()
	if err == nil && srcErr != nil && !errors.Is(srcErr, source.ErrStepFailed) && ctx.Err() == nil {
		err = srcErr
	}
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("the operation was canceled; the steps in flight finished: %w", context.Canceled))
	}
	return err
}

// runDeletes deletes the doomed resources, dependents first, after making
// sure none is protected.
func (d *deployment) runDeletes(ctx context.Context, list []runstate.Doomed) error {
	if err := stepgen.RefuseProtected(list); err != nil {
		return err
	}
	for _, x := range list {
		d.MarkDeleting(x.Res.URN)
	}
	return d.runTasks(ctx, d.planDeletes(list))
}

// runTasks runs a step graph and returns its error.
func (d *deployment) runTasks(ctx context.Context, tasks []task) error {
	return runError(runDAG(ctx, tasks, d.opts.parallel()))
}

// runError summarizes a run's failures.
func runError(run dagRun) error {
	err := errors.Join(run.errs...)
	if run.canceled {
		err = errors.Join(err, fmt.Errorf("the operation was canceled; the steps in flight finished: %w", context.Canceled))
	}
	return err
}

// exports records the stack outputs the program registered on the root
// resource; changed outputs are journaled, so that a state folded from the
// journal holds them.
func (d *deployment) exports(ctx context.Context) (resource.PropertyMap, error) {
	d.Mu.Lock()
	outputs := d.Outputs
	d.Mu.Unlock()
	if outputs == nil {
		outputs = resource.PropertyMap{}
	}
	if err := d.Planned.CheckOutputs(outputs); err != nil {
		return nil, err
	}
	for _, r := range d.News {
		if r.Type != resource.RootStackType {
			continue
		}
		if len(resource.DiffKeys(r.Outputs, outputs, nil)) > 0 {
			before := *r
			after := *r
			after.Outputs = outputs
			if err := d.exec.JournalPlain(ctx, OpUpdate, &before, &after); err != nil {
				return nil, fmt.Errorf("recording the stack outputs: %w", err)
			}
		}
		r.Outputs = outputs
	}
	return outputs, nil
}

// rootOutputs returns the stack outputs as currently recorded.
func (d *deployment) rootOutputs() resource.PropertyMap {
	d.Mu.Lock()
	defer d.Mu.Unlock()
	for _, r := range d.News {
		if r.Type == resource.RootStackType {
			return r.Outputs
		}
	}
	for _, r := range d.Old.Resources {
		if r.Type == resource.RootStackType && !r.Delete {
			return r.Outputs
		}
	}
	return resource.PropertyMap{}
}

// refreshFirst reads every recorded resource back and makes the result the
// state the plan starts from; its changes are not counted in the Result.
func (d *deployment) refreshFirst(ctx context.Context) error {
	if err := d.runTasks(ctx, d.planRefresh()); err != nil {
		return fmt.Errorf("refreshing before the plan: %w", err)
	}
	refreshed := d.snapshot()
	refreshed.PendingOperations = nil
	d.SetOld(refreshed)
	d.News, d.Steps = nil, nil
	d.Fate = make(map[*state.Resource]*state.Resource)
	d.Changes = make(map[Op]int)
	return nil
}
