package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// deployment is one operation on one (project, stack). Registrations
// arrive concurrently: the fields after "under mu" are guarded by mu.
type deployment struct {
	opts    *Options
	kind    string // preview, update, refresh, destroy
	dryRun  bool
	plugins map[string]resource.Plugin
	loader  pluginLoader
	ev      *emitter
	journal backend.Journal // opened by the first step that writes (openJournal)
	// journalOnce opens the journal; journalErr is why it could not.
	journalOnce sync.Once
	journalErr  error
	seq         atomic.Int64
	// leases are the locks confirmed before every step's plugin call: the
	// caller's (Options.Held) and the operation's own.
	leases []backend.Lock
	provs  providerCache // the providers configured so far
	sem    chan struct{} // bounds the steps in flight (nil: the source does)
	// workCtx is the context of the steps: the operation's without its
	// cancellation, so that steps in flight finish.
	workCtx context.Context
	// runCtx is the operation's own context: a step that has not called
	// its plugin yet waits on no lease renewal once it ends (Ctrl-C).
	runCtx context.Context

	old     *state.Snapshot
	oldLive map[resource.URN]*state.Resource
	planned *plan.Index // the plan Up executes (nil: none)
	// covered says the plan's coverage was checked up front (Preflight).
	covered bool

	provMu   sync.Mutex
	defaults map[resource.URN]*providerRes // default providers
	// defaultByKey finds them as registrations name them (pluginKey to
	// *providerRes; read on every registration without a lock).
	defaultByKey sync.Map
	explicit     map[resource.URN]*providerRes // explicit providers registered

	anyAlong atomic.Bool // along is not empty
	alongMu  sync.Mutex
	along    map[resource.URN]bool // replaced along with a delete-before-replace replacement

	pendingMu sync.Mutex
	pending   []state.PendingOperation // steps whose outcome is unknown (resource.ErrOutcomeUnknown)

	stopped atomic.Bool // a step failed: later registrations are not attempted

	regMu      sync.Mutex // under regMu:
	registered map[resource.URN]*declared
	claimed    map[*state.Resource]bool // old records taken, when aliases are in play
	anyAliased bool                     // a registration took an old record by an alias

	mu       sync.Mutex           // under mu:
	stepErrs []error              // the steps that failed
	outputs  resource.PropertyMap // the stack outputs registered (nil: none)
	news     []*state.Resource
	fate     map[*state.Resource]*state.Resource // old record -> what replaces it in the leftovers (nil: dropped)
	changes  map[Op]int
	steps    []StepSummary
	plan     []Step // preview: the steps decided, in the order they finished
}

func newDeployment(opts *Options, kind string) *deployment {
	d := &deployment{
		opts:    opts,
		kind:    kind,
		dryRun:  kind == kindPreview,
		plugins: make(map[string]resource.Plugin, len(opts.Plugins)),
		ev:      &emitter{fn: opts.Events, project: opts.Project, stack: opts.Stack},
		fate:    make(map[*state.Resource]*state.Resource),
		changes: make(map[Op]int),
		along:   make(map[resource.URN]bool),

		registered: make(map[resource.URN]*declared),
		claimed:    make(map[*state.Resource]bool),

		defaults: make(map[resource.URN]*providerRes),
		explicit: make(map[resource.URN]*providerRes),
		sem:      make(chan struct{}, opts.parallel()),
	}
	d.loader.load = opts.LoadPlugin
	if kind == kindUpdate {
		d.planned = plan.NewIndex(opts.Plan)
	}
	for _, p := range opts.Plugins {
		d.plugins[p.Package()] = p
	}
	d.setOld(nil)
	return d
}

// setOld installs the previous snapshot (nil: never deployed).
func (d *deployment) setOld(snap *state.Snapshot) {
	if snap == nil {
		snap = &state.Snapshot{}
	}
	d.old = snap
	d.oldLive = make(map[resource.URN]*state.Resource, len(snap.Resources))
	for _, r := range snap.Resources {
		if !r.Delete {
			d.oldLive[r.URN] = r
		}
	}
}

// snapshot builds the current state: the records written by this operation
// and the old records not yet superseded or deleted, in the old order
// where they have an old record and after them, in the order their steps
// finished, where not (see canonicalOrder).
func (d *deployment) snapshot() *state.Snapshot {
	res := make([]*state.Resource, 0, len(d.news)+len(d.old.Resources))
	res = append(res, d.news...)
	for _, r := range d.old.Resources {
		if next, ok := d.fate[r]; ok {
			if next != nil {
				res = append(res, next)
			}
			continue
		}
		res = append(res, r)
	}
	res = canonicalOrder(res, d.old.Resources)
	dropDanglingDependencies(res)
	sp := d.opts.SecretsProvider
	if sp == nil {
		sp = d.old.SecretsProvider
	}
	d.pendingMu.Lock()
	pending := append([]state.PendingOperation(nil), d.pending...)
	d.pendingMu.Unlock()
	return &state.Snapshot{
		Manifest:          state.Manifest{Time: time.Now().UTC(), Version: d.opts.engineVersion()},
		SecretsProvider:   sp,
		Resources:         res,
		PendingOperations: pending,
	}
}

// leavePending records a step whose plugin stopped before answering as a
// pending operation of the snapshot (its journal entry is left open, so a
// crash folds it the same way): the next run reads the resource back.
func (d *deployment) leavePending(op Op, old, new *state.Resource) {
	p := state.PendingOperation{Resource: new, Type: state.OperationUpdating}
	switch {
	case op == OpCreate || op == OpCreateReplacement || old == nil:
		p.Type = state.OperationCreating
	case new == nil:
		p = state.PendingOperation{Resource: old, Type: state.OperationDeleting}
	}
	d.pendingMu.Lock()
	d.pending = append(d.pending, p)
	d.pendingMu.Unlock()
}

// outcomeUnknown reports whether err leaves the step's outcome unknown,
// and then records it as pending and says so in the error.
func (d *deployment) outcomeUnknown(err error, op Op, old, new *state.Resource) (bool, error) {
	if !errors.Is(err, resource.ErrOutcomeUnknown) {
		return false, err
	}
	d.leavePending(op, old, new)
	return true, fmt.Errorf("%w; it is kept as a pending operation that the next up, refresh or destroy reads back", err)
}

// count records a step in the changes and the step list.
func (d *deployment) count(op Op, rec *state.Resource, keys []string) {
	if isProvider(rec.Type) {
		return
	}
	counted := op
	switch op {
	case OpCreateReplacement:
		counted = OpReplace
	case OpDeleteReplaced:
		return
	}
	d.changes[counted]++
	if counted != OpSame {
		d.steps = append(d.steps, StepSummary{Op: counted, URN: rec.URN, Type: rec.Type, Keys: keys})
	}
}

// begin journals the start of a mutating step (not during preview), its
// plugin call to follow at once. The locks the step runs under are
// confirmed before and after the journal write (which may be slow, and
// the process stopped within it): a step whose locks are not proven its
// own does not start, and its begun entry is ended as failed.
func (d *deployment) begin(ctx context.Context, op Op, old, new *state.Resource) (int64, error) {
	if d.dryRun {
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

// stepStart, stepDone and stepFailed emit step events.
func (d *deployment) stepStart(op Op, urn resource.URN, typ string, keys []string) {
	d.ev.emit(Event{Type: EventStepStart, Op: op, URN: urn, ResourceType: typ, Keys: keys})
}

func (d *deployment) stepDone(op Op, urn resource.URN, typ string, keys []string, start time.Time) {
	d.ev.emit(Event{Type: EventStepDone, Op: op, URN: urn, ResourceType: typ, Keys: keys, Duration: time.Since(start)})
}

func (d *deployment) stepFailed(op Op, urn resource.URN, typ string, err error, start time.Time) {
	d.ev.emit(Event{Type: EventStepFailed, Op: op, URN: urn, ResourceType: typ, Error: err.Error(), Duration: time.Since(start)})
}

// history builds the history record of the operation.
func (d *deployment) history(start time.Time, failed bool) backend.HistoryRecord {
	changes := make(map[string]int, len(d.changes))
	for op, n := range d.changes {
		changes[string(op)] = n
	}
	result := "succeeded"
	if failed {
		result = "failed"
	}
	return backend.HistoryRecord{
		Kind: d.kind, Result: result, StartTime: start.UTC(), EndTime: time.Now().UTC(),
		Changes: changes, User: d.opts.Lock.User, Host: d.opts.Lock.Host,
	}
}

// result builds the operation's Result.
func (d *deployment) result(start time.Time, outputs resource.PropertyMap) *Result {
	if outputs == nil {
		outputs = resource.PropertyMap{}
	}
	return &Result{Changes: d.changes, Outputs: outputs, Steps: d.steps, Duration: time.Since(start)}
}

// isProvider reports whether typ is a provider resource type.
func isProvider(typ string) bool {
	return len(typ) > len(providerTypePrefix) && typ[:len(providerTypePrefix)] == providerTypePrefix
}

const providerTypePrefix = "pulumi:providers:"

// dropDanglingDependencies removes, from records left untouched by a failed
// operation, dependencies on resources that no longer exist (a resource
// deleted before its replacement failed to be created), so that the
// snapshot stays valid. Records are copied before they change.
func dropDanglingDependencies(list []*state.Resource) {
	present := make(map[resource.URN]bool, len(list))
	for _, r := range list {
		present[r.URN] = true
	}
	for i, r := range list {
		dangling := false
		for _, dep := range r.Dependencies {
			if !present[dep] {
				dangling = true
				break
			}
		}
		if !dangling {
			continue
		}
		c := *r
		c.Dependencies = nil
		for _, dep := range r.Dependencies {
			if present[dep] {
				c.Dependencies = append(c.Dependencies, dep)
			}
		}
		c.PropertyDependencies = nil
		for k, deps := range r.PropertyDependencies {
			for _, dep := range deps {
				if present[dep] {
					if c.PropertyDependencies == nil {
						c.PropertyDependencies = map[string][]resource.URN{}
					}
					c.PropertyDependencies[k] = append(c.PropertyDependencies[k], dep)
				}
			}
		}
		list[i] = &c
	}
}

// canonicalOrder orders res (the records written by an operation, in the
// order their steps finished, then the old records kept) as the old
// snapshot old orders their URNs, records of new URNs after them in the
// order of res, then moves as little as it must so that each record comes
// after those it refers to (state.SortDependencyOrder). Steps running side
// by side finish in any order: so a run that changed nothing writes the
// old order again, and a store can see that nothing changed.
func canonicalOrder(res, old []*state.Resource) []*state.Resource {
	if len(old) == 0 {
		return res // already a dependency order, and no old order to keep
	}
	pos := make(map[resource.URN]int, len(old))
	for i, r := range old {
		if _, ok := pos[r.URN]; !ok {
			pos[r.URN] = i
		}
	}
	type ranked struct {
		rank int
		r    *state.Resource
	}
	order := make([]ranked, len(res))
	for i, r := range res {
		order[i] = ranked{len(old) + i, r}
		if p, ok := pos[r.URN]; ok {
			order[i].rank = p
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].rank < order[j].rank })
	sorted := make([]*state.Resource, len(order))
	for i, o := range order {
		sorted[i] = o.r
	}
	return state.SortDependencyOrder(sorted)
}
