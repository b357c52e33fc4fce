package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Options configure one operation on one (project, stack).
type Options struct {
	Project, Stack string
	// Backend holds the state, journals and locks.
	Backend backend.Backend
	// Plugins serve the resource types, one per package.
	Plugins []resource.Plugin
	// Crypter protects the snapshot's secrets at rest.
	Crypter resource.Crypter
	// SecretsProvider is recorded in the snapshot (nil: keep the previous one).
	SecretsProvider *state.SecretsProvider
	// Config holds the stack config ("namespace:key" -> value; secrets as
	// resource.Secret).
	Config map[string]any
	// Parallel bounds how many steps run at once (0: DefaultParallel).
	Parallel int
	// Events receives progress, one call at a time (nil: none).
	Events func(Event)
	// Lock names the holder recorded in the (project, stack) lock.
	Lock backend.LockInfo
	// Refresh makes Preview and Up read every recorded resource back first
	// (as Refresh does), so that the plan starts from the real state.
	Refresh bool
	// References, when set, gives the stack outputs of other projects that a
	// StackReference reads instead of their stored snapshot: ok false means
	// "not known here, load the snapshot". Unknown values are
	// resource.Computed, secrets resource.Secret.
	References func(project string) (resource.PropertyMap, bool)
	// EngineVersion is the version of the program running the engine,
	// recorded in the manifest of every snapshot written ("": "dev").
	EngineVersion string
	// Dir is the project directory: relative paths of file assets and
	// archives resolve against it ("": the current directory).
	Dir string
	// Plan, for Up, is the plan to execute (as Preview returned it in
	// Result.Plan): Up refuses it with a *PlanMismatchError, changing
	// nothing, when the stored state changed since, and stops before the
	// first step that differs from its planned step. Other operations
	// ignore it.
	Plan *Plan
}

// The operation kinds, as recorded in history.
const (
	kindPreview = "preview"
	kindUpdate  = "update"
	kindRefresh = "refresh"
	kindDestroy = "destroy"
)

func (o *Options) parallel() int {
	if o.Parallel > 0 {
		return o.Parallel
	}
	return DefaultParallel()
}

// engineVersion returns the version recorded in snapshot manifests.
func (o *Options) engineVersion() string {
	if o.EngineVersion != "" {
		return o.EngineVersion
	}
	return "dev"
}

func (o *Options) validate() error {
	switch {
	case o.Project == "" || o.Stack == "":
		return errors.New("the engine needs a project and a stack name")
	case o.Backend == nil:
		return fmt.Errorf("project %s: the engine needs a backend to keep state in", o.Project)
	}
	return nil
}

// Every operation returns a non-nil Result, also with an error: the steps
// that ran before the failure.

// Preview runs prog and plans its steps without side effects: plugins only
// predict outputs, nothing is journaled or saved, no lock is taken.
// Pending operations of an interrupted run are reported as events and
// resolved in memory, by reading their resources back, as Up resolves them.
func Preview(ctx context.Context, opts Options, prog Program) (*Result, error) {
	return operate(ctx, &opts, kindPreview, prog)
}

// Up runs prog and brings the stack to what it declares.
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
	res, err := deploy(ctx, opts, kind, prog)
	if res == nil {
		res = &Result{Changes: map[Op]int{}, Outputs: resource.PropertyMap{}, Duration: time.Since(start)}
	}
	return res, err
}

// deploy runs one operation: lock, load, resolve pending operations, run
// the program (preview, up), execute the steps, save.
func deploy(ctx context.Context, opts *Options, kind string, prog Program) (res *Result, err error) {
	start := time.Now()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	d := newDeployment(opts, kind)
	if !d.dryRun {
		lock, lerr := opts.Backend.Lock(ctx, opts.Project, opts.Stack, opts.Lock)
		if lerr != nil {
			return nil, fmt.Errorf("%s %s: locking stack %s: %w", kind, opts.Project, opts.Stack, lerr)
		}
		if dead := lock.Previous(); dead != nil {
			d.ev.diag(SeverityWarning, backend.TakeoverWarning(fmt.Sprintf("stack %s of project %s", opts.Stack, opts.Project), *dead))
		}
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
	snap, base, err := d.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, opts.Project, err)
	}
	if snap == nil && prog == nil {
		return d.result(start, nil), nil // refresh or destroy of a project never deployed: nothing to do
	}
	ds, err := d.prepare(ctx, snap, prog)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, opts.Project, err)
	}
	if !d.dryRun {
		j, err := opts.Backend.OpenJournal(ctx, opts.Project, opts.Stack, d.old, opts.Crypter)
		if err != nil {
			return nil, fmt.Errorf("%s %s: opening the journal: %w", kind, opts.Project, err)
		}
		d.journal = j
	}
	outputs, runErr := d.execute(ctx, ds)
	if !d.dryRun {
		err := d.journal.Commit(context.WithoutCancel(ctx), d.snapshot(), d.history(start, runErr != nil))
		if err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("saving the state: %w", err))
		}
	}
	res = d.result(start, outputs)
	if runErr != nil {
		return res, fmt.Errorf("%s %s: %w", kind, opts.Project, runErr)
	}
	if d.dryRun && ds != nil {
		res.Plan = &Plan{Project: opts.Project, Stack: opts.Stack, Base: base, Steps: d.plan, Outputs: outputs}
	}
	return res, nil
}

// load checks the plan Up executes against the stored state, then loads
// it. For a preview it also returns the digest of the state it loaded (the
// plan's base).
func (d *deployment) load(ctx context.Context) (*state.Snapshot, string, error) {
	if err := d.checkPlanBase(ctx); err != nil {
		return nil, "", err
	}
	var base string
	if d.dryRun {
		var err error
		if base, _, err = d.stateDigest(ctx); err != nil {
			return nil, "", err
		}
	}
	snap, err := d.opts.Backend.Load(ctx, d.opts.Project, d.opts.Stack, d.opts.Crypter)
	if err != nil {
		return nil, "", fmt.Errorf("loading the state of stack %s: %w", d.opts.Stack, err)
	}
	return snap, base, nil
}

// prepare installs the loaded state, resolves pending operations (in
// preview too, in memory only, so that it plans what up will do), runs the program and refreshes first when asked. An
// Up with a plan then checks the plan covers exactly the steps to take.
func (d *deployment) prepare(ctx context.Context, snap *state.Snapshot, prog Program) (*program.Declarations, error) {
	d.setOld(snap)
	if err := d.recoverPending(ctx); err != nil {
		if !d.dryRun {
			return nil, err
		}
		// A preview (perhaps of a stack an up is changing right now) plans
		// on the state as recorded; up resolves or refuses it first.
		d.ev.diag(SeverityWarning, fmt.Sprintf("the preview plans on the recorded state: %v", err))
	}
	if prog == nil {
		return nil, nil
	}
	env := program.Env{
		Project: d.opts.Project, Stack: d.opts.Stack, DryRun: d.dryRun, Config: d.opts.Config,
		Log:          func(msg string) { d.ev.diag(SeverityInfo, msg) },
		StackOutputs: stackOutputs(ctx, d.opts),
		Dir:          d.opts.Dir,
	}
	ds, err := program.Run(ctx, env, prog)
	if err != nil {
		return nil, err
	}
	d.decls = ds
	if d.opts.Refresh {
		if err := d.refreshFirst(ctx); err != nil {
			return nil, err
		}
	}
	if err := d.checkPlanCoverage(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// execute runs the steps of the operation and returns the stack outputs.
func (d *deployment) execute(ctx context.Context, ds *program.Declarations) (resource.PropertyMap, error) {
	switch d.kind {
	case kindRefresh:
		return d.rootOutputs(), d.runTasks(ctx, d.planRefresh())
	case kindDestroy:
		return resource.PropertyMap{}, d.runDeletes(ctx, d.condemnedAll())
	}
	tasks, decls, err := d.planRegistrations(ds)
	if err != nil {
		return d.rootOutputs(), err
	}
	d.index(decls)
	if err := d.prepareProviders(ctx); err != nil {
		return d.rootOutputs(), err
	}
	if d.dryRun {
		d.plan = make([]Step, 0, len(decls))
	}
	run := runDAG(ctx, tasks, d.opts.parallel())
	for _, dr := range decls {
		if !run.ran[dr.task] {
			ds.Finish(dr.i, "", false, nil, errNotAttempted)
		}
	}
	if err := runError(run); err != nil {
		return d.rootOutputs(), err
	}
	outputs, err := d.exports(ctx, ds)
	if err != nil {
		return d.rootOutputs(), err
	}
	declared := make(map[resource.URN]bool, len(d.news))
	for _, r := range d.news {
		declared[r.URN] = true
	}
	return outputs, d.runDeletes(ctx, d.condemnedAfterUp(declared))
}

// runDeletes deletes the doomed resources, dependents first, after making
// sure none is protected.
func (d *deployment) runDeletes(ctx context.Context, list []doomed) error {
	if err := refuseProtected(list); err != nil {
		return err
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
		err = errors.Join(err, fmt.Errorf("the operation was canceled; steps in flight finished and the state was saved: %w", context.Canceled))
	}
	return err
}

// exports resolves the stack outputs and records them on the root
// resource; changed outputs are journaled, so that a state folded from the
// journal holds them.
func (d *deployment) exports(ctx context.Context, ds *program.Declarations) (resource.PropertyMap, error) {
	outputs, err := ds.Outputs()
	if err != nil {
		return nil, err
	}
	if err := d.planned.CheckOutputs(outputs); err != nil {
		return nil, err
	}
	for _, r := range d.news {
		if r.Type != resource.RootStackType {
			continue
		}
		if len(resource.DiffKeys(r.Outputs, outputs, nil)) > 0 {
			before := *r
			after := *r
			after.Outputs = outputs
			if err := d.journalPlain(ctx, OpUpdate, &before, &after); err != nil {
				return nil, fmt.Errorf("recording the stack outputs: %w", err)
			}
		}
		r.Outputs = outputs
	}
	return outputs, nil
}

// rootOutputs returns the stack outputs as currently recorded.
func (d *deployment) rootOutputs() resource.PropertyMap {
	for _, r := range d.news {
		if r.Type == resource.RootStackType {
			return r.Outputs
		}
	}
	for _, r := range d.old.Resources {
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
	d.setOld(refreshed)
	d.news, d.steps = nil, nil
	d.fate = make(map[*state.Resource]*state.Resource)
	d.changes = make(map[Op]int)
	return nil
}
