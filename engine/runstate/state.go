// Package runstate holds the state of one operation on one (project,
// stack) in memory, which the step generator (engine/stepgen) reads and the
// step executor (engine/stepexec) writes: the recorded snapshot the
// operation starts from, the registrations so far, the providers and the
// plugins that serve them, the records the steps wrote (the snapshot to
// commit) and the operation's events. It decides nothing and calls no
// plugin but to configure a provider from its record.
package runstate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// The operation kinds, as recorded in history.
const (
	KindPreview = "preview"
	KindUpdate  = "update"
	KindRefresh = "refresh"
	KindDestroy = "destroy"
)

// Config is what an operation's state starts from.
type Config struct {
	Project, Stack string
	Kind           string // KindPreview and the others
	// Config is the stack config ("namespace:key" -> value).
	Config map[string]any
	// Plugins serve the resource types, one per package; LoadPlugin finds
	// the others (nil: none).
	Plugins    []resource.Plugin
	LoadPlugin func(ctx context.Context, pkg, version, downloadURL string) (resource.Plugin, error)
	// LoadParameterized finds the base plugin of a parameterized package
	// and returns it parameterized (nil: parameterized packages fail).
	LoadParameterized func(ctx context.Context, pz resource.Parameterization, downloadURL string) (resource.Plugin, error)
	// Events receives the operation's events (nil: none).
	Events func(Event)
	// Plan is the plan an update executes (nil: none).
	Plan *plan.Plan
}

// State is the state of one operation in memory. Registrations arrive
// concurrently: the fields after "under Mu" are guarded by Mu.
type State struct {
	Project, Stack string
	Kind           string
	DryRun         bool // a preview: nothing changes
	Config         map[string]any
	Events         *Emitter

	plugins map[string]resource.Plugin
	loader  pluginLoader
	// Provs are the providers' plugins configured so far.
	Provs ProviderCache

	Old     *state.Snapshot
	OldLive map[resource.URN]*state.Resource
	Planned *plan.Index // the plan an update executes (nil: none)

	provMu   sync.Mutex
	defaults map[resource.URN]*Provider // default providers
	// defaultByKey finds them as registrations name them (pluginKey to
	// *Provider; read on every registration without a lock).
	defaultByKey sync.Map
	explicit     map[resource.URN]*Provider // explicit providers registered

	anyAlong atomic.Bool // along is not empty
	alongMu  sync.Mutex
	along    map[resource.URN]bool // replaced along with a delete-before-replace replacement

	doomMu    sync.Mutex // under doomMu (see deletedwith.go):
	deleting  map[resource.URN]bool
	replacing map[resource.URN]bool

	pendingMu sync.Mutex
	pending   []state.PendingOperation // steps whose outcome is unknown (resource.ErrOutcomeUnknown)

	// Stopped says a step failed: later registrations are not attempted.
	Stopped atomic.Bool

	regMu      sync.Mutex // under regMu:
	registered map[resource.URN]*Declared
	claimed    map[*state.Resource]resource.URN // old records taken (and by whom), when aliases are in play
	anyAliased bool                             // a registration took an old record by an alias
	// aliasedFrom maps a registration that took an old record by an
	// alias to that record's URN (its children's aliases derive from it).
	aliasedFrom map[resource.URN]resource.URN

	Mu       sync.Mutex // under Mu:
	StepErrs []error    // the steps that failed
	// Outputs are the stack outputs registered (nil: none).
	Outputs resource.PropertyMap
	// News are the records this operation wrote, in the order their steps
	// finished; Fate maps an old record to what replaces it in the
	// leftovers (nil: dropped).
	News    []*state.Resource
	Fate    map[*state.Resource]*state.Resource
	Changes map[plan.Op]int
	Steps   []StepSummary
	Plan    []plan.Step // preview: the steps decided, in the order they finished
}

// New returns the state of an operation that has not loaded its snapshot
// yet (SetOld).
func New(c Config) *State {
	d := &State{
		Project: c.Project, Stack: c.Stack, Kind: c.Kind, DryRun: c.Kind == KindPreview, Config: c.Config,
		Events:  NewEmitter(c.Events, c.Project, c.Stack),
		plugins: make(map[string]resource.Plugin, len(c.Plugins)),
		Fate:    make(map[*state.Resource]*state.Resource),
		Changes: make(map[plan.Op]int),
		along:   make(map[resource.URN]bool),

		registered: make(map[resource.URN]*Declared),
		claimed:    make(map[*state.Resource]resource.URN),

		defaults: make(map[resource.URN]*Provider),
		explicit: make(map[resource.URN]*Provider),
	}
	d.loader.load, d.loader.loadParam = c.LoadPlugin, c.LoadParameterized
	if c.Kind == KindUpdate {
		d.Planned = plan.NewIndex(c.Plan)
	}
	for _, p := range c.Plugins {
		d.plugins[p.Package()] = p
	}
	d.SetOld(nil)
	return d
}

// SetOld installs the previous snapshot (nil: never deployed).
func (d *State) SetOld(snap *state.Snapshot) {
	if snap == nil {
		snap = &state.Snapshot{}
	}
	d.Old = snap
	d.OldLive = make(map[resource.URN]*state.Resource, len(snap.Resources))
	for _, r := range snap.Resources {
		if !r.Delete {
			d.OldLive[r.URN] = r
		}
	}
}

// Snapshot builds the current state: the records written by this operation
// and the old records not yet superseded or deleted, in the old order
// where they have an old record and after them, in the order their steps
// finished, where not (see canonicalOrder). sp is the secrets provider to
// record (nil: the old one's), version the engine's.
func (d *State) Snapshot(sp *state.SecretsProvider, version string) *state.Snapshot {
	res := make([]*state.Resource, 0, len(d.News)+len(d.Old.Resources))
	res = append(res, d.News...)
	for _, r := range d.Old.Resources {
		if next, ok := d.Fate[r]; ok {
			if next != nil {
				res = append(res, next)
			}
			continue
		}
		res = append(res, r)
	}
	followRenames(res, d.renamedByAliases())
	res = canonicalOrder(res, d.Old.Resources)
	dropDanglingDependencies(res)
	if sp == nil {
		sp = d.Old.SecretsProvider
	}
	d.pendingMu.Lock()
	pending := append([]state.PendingOperation(nil), d.pending...)
	d.pendingMu.Unlock()
	return &state.Snapshot{
		Manifest:          state.Manifest{Time: time.Now().UTC(), Version: version},
		SecretsProvider:   sp,
		Resources:         res,
		PendingOperations: pending,
	}
}

// LeavePending records a step whose plugin stopped before answering as a
// pending operation of the snapshot (its journal entry is left open, so a
// crash folds it the same way): the next run reads the resource back.
func (d *State) LeavePending(op plan.Op, old, new *state.Resource) {
	p := state.PendingOperation{Resource: new, Type: state.OperationUpdating}
	switch {
	case op == plan.OpCreate || op == plan.OpCreateReplacement || old == nil:
		p.Type = state.OperationCreating
	case new == nil:
		p = state.PendingOperation{Resource: old, Type: state.OperationDeleting}
	}
	d.pendingMu.Lock()
	d.pending = append(d.pending, p)
	d.pendingMu.Unlock()
}

// OutcomeUnknown reports whether err leaves the step's outcome unknown,
// and then records it as pending and says so in the error.
func (d *State) OutcomeUnknown(err error, op plan.Op, old, new *state.Resource) (bool, error) {
	if !errors.Is(err, resource.ErrOutcomeUnknown) {
		return false, err
	}
	d.LeavePending(op, old, new)
	return true, fmt.Errorf("%w; it is kept as a pending operation that the next up, refresh or destroy reads back", err)
}

// Count records a step in the changes and the step list.
func (d *State) Count(op plan.Op, rec *state.Resource, keys []string) {
	if IsProvider(rec.Type) {
		return
	}
	counted := op
	switch op {
	case plan.OpCreateReplacement, plan.OpReadReplacement:
		counted = plan.OpReplace
	case plan.OpDeleteReplaced, plan.OpDiscardReplaced:
		return
	}
	d.Changes[counted]++
	if counted != plan.OpSame {
		d.Steps = append(d.Steps, StepSummary{Op: counted, URN: rec.URN, Type: rec.Type, Keys: keys})
	}
}

// IsProvider reports whether typ is a provider resource type.
func IsProvider(typ string) bool {
	return len(typ) > len(ProviderTypePrefix) && typ[:len(ProviderTypePrefix)] == ProviderTypePrefix
}

const ProviderTypePrefix = "pulumi:providers:"

// dropDanglingDependencies removes, from records left untouched by a failed
// operation, dependencies (and a deletedWith) on resources that no longer
// exist (a resource deleted before its replacement failed to be created),
// so that the snapshot stays valid, as Pulumi drops them. Records are copied before they change.
func dropDanglingDependencies(list []*state.Resource) {
	present := make(map[resource.URN]bool, len(list))
	for _, r := range list {
		present[r.URN] = true
	}
	for i, r := range list {
		if r.DeletedWith != "" && !present[r.DeletedWith] {
			c := *r
			c.DeletedWith = ""
			list[i], r = &c, &c
		}
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
