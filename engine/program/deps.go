package program

import "github.com/runnerhq/runner/engine/resource"

// dependsOn appends to waits the DependsOn of r (a component stands for
// itself and its descendants declared before r) and returns r's recorded
// dependencies (its input dependencies and DependsOn, by URN) and waits.
func dependsOn(r *Resource, inputDeps []*Resource, waits []int, desc map[*Resource][]*Resource) ([]resource.URN, []int) {
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
		waits = append(waits, dep.index)
		if !seen[dep.urn] {
			seen[dep.urn] = true
			urns = append(urns, dep.urn)
		}
		if !dep.custom {
			for _, child := range descendantsOf(dep, desc) {
				if child.index < r.index {
					waits = append(waits, child.index)
				}
			}
		}
	}
	return urns, waits
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
