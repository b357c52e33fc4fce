package engine

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// declared is a declared resource with what its step needs, computed once
// before the steps run.
type declared struct {
	i    int // its index in the program's declarations
	r    *program.Declaration
	task int
	old  *state.Resource
	// plugin serves the resource: a built-in plugin from the start; a
	// configurable one's configured plugin once its step starts (read it
	// only from the resource's own step).
	plugin resource.Plugin
	// provider is the planned provider reference "<URN>::<ID>": its URN is
	// final, its ID changes when the provider is replaced (providerRef
	// gives the final one, once the step starts).
	provider string
	prov     *providerRes
	// providerReplaced says the resource's recorded provider is replaced by
	// prov (set when the step starts): the resource must be replaced too.
	providerReplaced bool
	deps             []resource.URN
	propDeps         map[string][]resource.URN
	step             Step // the decided step, set by the worker before commit (Op "": none)
}

// providerRes is a provider resource: the default provider of one package
// (Pulumi's pulumi:providers:<pkg>::default_x_y_z) or an explicit provider
// the program declares (decl set).
type providerRes struct {
	pkg  string
	urn  resource.URN
	id   string // changed by the provider's task when it replaces the provider
	old  *state.Resource
	task int
	base resource.Plugin
	// configurable is base when it is a resource.Configurable (nil: a
	// built-in plugin, whose provider has no inputs and makes no call).
	configurable resource.Configurable
	// decl is an explicit provider's declaration (nil: a default provider).
	decl *declared
	// early says the provider is configured before any step runs (its
	// inputs refer to no resource of the program).
	early bool
	// fromRefs are the recorded provider references of the recorded
	// resources that use the provider now: DiffConfig against each says
	// whether they are replaced.
	fromRefs map[string]bool

	// Set by prepareProvider (before any step runs, or by the provider's
	// task), read by the tasks of its resources, which depend on it.
	prepared      bool
	ch            providerChange
	configUnknown bool            // the checked config holds unknowns (preview)
	plugin        resource.Plugin // base, configured
	replacing     map[string]bool // recorded provider references whose resources are replaced
}

// ref returns the provider reference "<URN>::<ID>" resources record.
func (p *providerRes) ref() string { return string(p.urn) + "::" + p.id }

// planRegistrations builds the step graph of the declared resources: the
// root stack first, then one default provider per package its resources
// use without an explicit provider, then every declared resource in
// declaration order. A task depends on its parent, its provider, the
// resources its inputs refer to and its DependsOn.
func (d *deployment) planRegistrations(ds *program.Declarations) ([]task, []*declared, error) {
	list := ds.List()
	if err := checkProviderOptions(list); err != nil {
		return nil, nil, err
	}
	provs, provByPkg, err := d.planProviders(list)
	if err != nil {
		return nil, nil, err
	}
	shift := len(provs)
	taskOf := func(i int) int {
		if i == 0 {
			return 0
		}
		return i + shift
	}
	tasks := make([]task, len(list)+shift)
	decls := make([]*declared, len(list))
	for _, p := range provs {
		tasks[p.task] = task{deps: []int{0}, run: func(ctx context.Context) (func(), error) { return d.runProvider(ctx, p) }}
	}
	explicit := make(map[int]*providerRes)
	stamp := make([]int, len(tasks))
	for i := range list {
		r := &list[i]
		dr := &declared{i: i, r: r, task: taskOf(i), old: d.oldLive[r.URN]}
		decls[i] = dr
		var deps []int
		addDep := func(t int) {
			if t != dr.task && stamp[t] != dr.task+1 {
				stamp[t] = dr.task + 1
				deps = append(deps, t)
			}
		}
		if r.Parent >= 0 {
			addDep(taskOf(r.Parent))
		}
		rd, err := ds.Dependencies(i)
		if err != nil {
			return nil, nil, err
		}
		for _, w := range rd.Waits {
			addDep(taskOf(w))
		}
		dr.deps, dr.propDeps = rd.URNs, rd.Properties
		switch {
		case r.Custom && isProvider(r.Type):
			p, err := d.explicitProvider(dr, len(rd.Waits) == 0)
			if err != nil {
				return nil, nil, err
			}
			explicit[i] = p
			provs = append(provs, p)
			tasks[dr.task] = task{deps: deps, run: func(ctx context.Context) (func(), error) { return d.runExplicitProvider(ctx, p) }}
			continue
		case r.Custom:
			p := provByPkg[resource.Package(r.Type)]
			if r.Provider >= 0 {
				p = explicit[r.Provider]
			}
			addDep(p.task)
			d.useProvider(dr, p)
		}
		tasks[dr.task] = d.registrationTask(dr, deps)
	}
	d.providers = provs
	return tasks, decls, nil
}

// useProvider makes the declared custom resource dr use the provider p.
func (d *deployment) useProvider(dr *declared, p *providerRes) {
	dr.prov, dr.provider = p, p.ref()
	if p.configurable == nil {
		dr.plugin = p.base
	}
	if dr.old != nil && dr.old.Provider != "" {
		p.fromRefs[dr.old.Provider] = true
	}
}

// planProviders finds the packages the declared custom resources use
// without an explicit provider, in order of first use, checks each has a
// plugin, and gives each a default provider whose ID is kept from the
// previous state. A configurable plugin's provider is named after its
// version, as Pulumi names it; a new one has the unknown ID during preview.
func (d *deployment) planProviders(decls []program.Declaration) ([]*providerRes, map[string]*providerRes, error) {
	byPkg := make(map[string]*providerRes)
	var list []*providerRes
	for i := range decls {
		r := &decls[i]
		if !r.Custom || isProvider(r.Type) || r.Provider >= 0 {
			continue
		}
		pkg := resource.Package(r.Type)
		if byPkg[pkg] != nil {
			continue
		}
		base, err := d.pluginFor(r.Type, r.URN)
		if err != nil {
			return nil, nil, err
		}
		p := &providerRes{pkg: pkg, task: len(list) + 1, base: base, early: true, fromRefs: map[string]bool{}}
		name := "default"
		if cp, ok := base.(resource.Configurable); ok {
			p.configurable = cp
			if name, err = defaultProviderName(cp.Version()); err != nil {
				return nil, nil, fmt.Errorf("the %s plugin: %w", pkg, err)
			}
		}
		p.urn = resource.NewURN(d.opts.Stack, d.opts.Project, "", providerTypePrefix+pkg, name)
		p.old = d.oldLive[p.urn]
		p.id = d.providerID(p)
		byPkg[pkg] = p
		list = append(list, p)
	}
	return list, byPkg, nil
}

// providerID returns the ID a provider starts with: the recorded one, else
// a new UUID (the unknown ID for a configurable plugin's during preview).
func (d *deployment) providerID(p *providerRes) string {
	switch {
	case p.old != nil && p.old.ID != "":
		return p.old.ID
	case p.configurable != nil && d.dryRun:
		return resource.UnknownStringValue
	}
	return newUUID()
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
