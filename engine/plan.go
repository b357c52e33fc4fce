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
	prov     *defaultProvider
	// providerReplaced says the resource's recorded provider is replaced by
	// prov (set when the step starts): the resource must be replaced too.
	providerReplaced bool
	deps             []resource.URN
	propDeps         map[string][]resource.URN
	step             Step // the decided step, set by the worker before commit (Op "": none)
}

// defaultProvider is the default provider resource of one package.
type defaultProvider struct {
	pkg  string
	urn  resource.URN
	id   string // changed by the provider's task when it replaces the provider
	old  *state.Resource
	task int
	base resource.Plugin
	// configurable is base when it is a resource.Configurable (nil: a
	// built-in plugin, whose provider has no inputs and makes no call).
	configurable resource.Configurable

	// Set by the provider's task, read by the tasks of its resources, which
	// depend on it.
	plugin    resource.Plugin // base, configured
	replacing map[string]bool // recorded provider references whose resources are replaced
}

// ref returns the provider reference "<URN>::<ID>" resources record.
func (p *defaultProvider) ref() string { return string(p.urn) + "::" + p.id }

// planRegistrations builds the step graph of the declared resources: the
// root stack first, then one default provider per package, then every
// declared resource in declaration order. A task depends on its parent, its
// provider, the resources its inputs refer to and its DependsOn.
func (d *deployment) planRegistrations(ds *program.Declarations) ([]task, []*declared, error) {
	list := ds.List()
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
		p := p
		tasks[p.task] = task{deps: []int{0}, run: func(ctx context.Context) (func(), error) { return d.runProvider(ctx, p) }}
	}
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
		if r.Custom {
			p := provByPkg[resource.Package(r.Type)]
			addDep(p.task)
			dr.prov, dr.provider = p, p.ref()
			if p.configurable == nil {
				dr.plugin = p.base
			}
		}
		rd, err := ds.Dependencies(i)
		if err != nil {
			return nil, nil, err
		}
		for _, w := range rd.Waits {
			addDep(taskOf(w))
		}
		dr.deps, dr.propDeps = rd.URNs, rd.Properties
		tasks[dr.task] = d.registrationTask(dr, deps)
	}
	return tasks, decls, nil
}

// planProviders finds the packages the declared custom resources use, in
// order of first use, checks each has a plugin, and gives each a default
// provider whose ID is kept from the previous state. A configurable plugin's
// provider is named after its version, as Pulumi names it; a new one has the
// unknown ID during preview.
func (d *deployment) planProviders(decls []program.Declaration) ([]*defaultProvider, map[string]*defaultProvider, error) {
	byPkg := make(map[string]*defaultProvider)
	var list []*defaultProvider
	for i := range decls {
		r := &decls[i]
		if !r.Custom {
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
		p := &defaultProvider{pkg: pkg, task: len(list) + 1, base: base}
		name := "default"
		if cp, ok := base.(resource.Configurable); ok {
			p.configurable = cp
			if name, err = defaultProviderName(cp.Version()); err != nil {
				return nil, nil, fmt.Errorf("the %s plugin: %w", pkg, err)
			}
		}
		p.urn = resource.NewURN(d.opts.Stack, d.opts.Project, "", providerTypePrefix+pkg, name)
		p.old = d.oldLive[p.urn]
		switch {
		case p.old != nil && p.old.ID != "":
			p.id = p.old.ID
		case p.configurable != nil && d.dryRun:
			p.id = resource.UnknownStringValue
		default:
			p.id = newUUID()
		}
		byPkg[pkg] = p
		list = append(list, p)
	}
	return list, byPkg, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
