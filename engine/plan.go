package engine

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// declared is a declared resource with what its step needs, computed once
// before the steps run.
type declared struct {
	r        *Resource
	task     int
	old      *state.Resource
	plugin   resource.Plugin
	provider string // "<provider URN>::<provider ID>"
	deps     []resource.URN
	propDeps map[string][]resource.URN
	step     Step // the decided step, set by the worker before commit (Op "": none)
}

// defaultProvider is the default provider resource of one package.
type defaultProvider struct {
	pkg  string
	urn  resource.URN
	id   string
	old  *state.Resource
	task int
}

// planRegistrations builds the step graph of the declared resources: the
// root stack first, then one default provider per package, then every
// declared resource in declaration order. A task depends on its parent, its
// provider, the resources its inputs refer to and its DependsOn.
func (d *deployment) planRegistrations(c *Context) ([]task, []*declared, error) {
	provs, provByPkg, err := d.planProviders(c)
	if err != nil {
		return nil, nil, err
	}
	shift := len(provs)
	taskOf := func(r *Resource) int {
		if r.index == 0 {
			return 0
		}
		return r.index + shift
	}
	tasks := make([]task, len(c.resources)+shift)
	decls := make([]*declared, len(c.resources))
	for _, p := range provs {
		p := p
		tasks[p.task] = task{deps: []int{0}, run: func(ctx context.Context) (func(), error) { return d.runProvider(ctx, p) }}
	}
	stamp := make([]int, len(tasks))
	descendants := make(map[*Resource][]*Resource)
	for _, r := range c.resources {
		dr := &declared{r: r, task: taskOf(r), old: d.oldLive[r.urn]}
		decls[r.index] = dr
		var deps []int
		addDep := func(t int) {
			if t != dr.task && stamp[t] != dr.task+1 {
				stamp[t] = dr.task + 1
				deps = append(deps, t)
			}
		}
		if r.parent != nil {
			addDep(taskOf(r.parent))
		}
		if r.custom {
			p := provByPkg[resource.Package(r.typ)]
			addDep(p.task)
			dr.plugin = d.plugins[p.pkg]
			dr.provider = string(p.urn) + "::" + p.id
		}
		inputDeps := collectDeps(map[string]any(r.inputs), nil)
		for _, dep := range inputDeps {
			if dep.ctx != c {
				return nil, nil, fmt.Errorf("%s refers to an output of %s, a resource of another program; use a stack reference", r.urn, dep.urn)
			}
			addDep(taskOf(dep))
		}
		dr.deps = addDependsOn(r, inputDeps, addDep, taskOf, descendants)
		dr.propDeps = propertyDeps(r.inputs)
		tasks[dr.task] = d.registrationTask(dr, deps)
	}
	return tasks, decls, nil
}

// addDependsOn adds the DependsOn edges of r (a component stands for itself
// and its descendants declared before r) and returns r's recorded
// dependencies: its input dependencies and DependsOn, by URN.
func addDependsOn(r *Resource, inputDeps []*Resource, addDep func(int), taskOf func(*Resource) int, desc map[*Resource][]*Resource) []resource.URN {
	urns := make([]resource.URN, 0, len(inputDeps)+len(r.opts.dependsOn))
	seen := make(map[resource.URN]bool, cap(urns))
	for _, dep := range inputDeps {
		if !seen[dep.urn] {
			seen[dep.urn] = true
			urns = append(urns, dep.urn)
		}
	}
	for _, dep := range r.opts.dependsOn {
		if dep == nil || dep.ctx != r.ctx || dep.index >= r.index && dep != r.ctx.root {
			continue
		}
		addDep(taskOf(dep))
		if !seen[dep.urn] {
			seen[dep.urn] = true
			urns = append(urns, dep.urn)
		}
		if !dep.custom {
			for _, child := range descendantsOf(dep, desc) {
				if child.index < r.index {
					addDep(taskOf(child))
				}
			}
		}
	}
	return urns
}

// descendantsOf lists a component's descendants, memoized.
func descendantsOf(r *Resource, memo map[*Resource][]*Resource) []*Resource {
	if ds, ok := memo[r]; ok {
		return ds
	}
	var ds []*Resource
	for _, c := range r.children {
		ds = append(ds, c)
		ds = append(ds, descendantsOf(c, memo)...)
	}
	memo[r] = ds
	return ds
}

// propertyDeps maps each input property to the resources it refers to.
func propertyDeps(in Inputs) map[string][]resource.URN {
	var out map[string][]resource.URN
	for k, v := range in {
		deps := collectDeps(v, nil)
		if len(deps) == 0 {
			continue
		}
		if out == nil {
			out = make(map[string][]resource.URN)
		}
		urns := make([]resource.URN, len(deps))
		for i, dep := range deps {
			urns[i] = dep.urn
		}
		out[k] = urns
	}
	return out
}

// planProviders finds the packages the declared custom resources use, in
// order of first use, checks each has a plugin, and gives each a default
// provider whose ID is kept from the previous state.
func (d *deployment) planProviders(c *Context) ([]*defaultProvider, map[string]*defaultProvider, error) {
	byPkg := make(map[string]*defaultProvider)
	var list []*defaultProvider
	for _, r := range c.resources {
		if !r.custom {
			continue
		}
		pkg := resource.Package(r.typ)
		if byPkg[pkg] != nil {
			continue
		}
		if _, err := d.pluginFor(r.typ, r.urn); err != nil {
			return nil, nil, err
		}
		p := &defaultProvider{pkg: pkg, task: len(list) + 1}
		p.urn = resource.NewURN(c.stack, c.project, "", providerTypePrefix+pkg, "default")
		p.old = d.oldLive[p.urn]
		if p.old != nil && p.old.ID != "" {
			p.id = p.old.ID
		} else {
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
