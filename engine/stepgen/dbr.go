package stepgen

import (
	"context"
	"sort"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// replaceDependents finds the old records replaced along with the
// delete-before-replace replacement of dr (Pulumi deletes the dependents
// of such a resource before it, and creates them again after it; this is
// the conservative version, which replaces every such dependent): each
// live old custom resource that the program has not registered yet (it
// registers a dependent after what it depends on) and that depends on
// dr's resource or on another of them (through its dependencies, property
// dependencies, parent, provider or deletedWith: a resource deleted with
// it is gone with it, as Pulumi's cascade finds). They are marked replaced along and
// returned in delete order, dependents first.
func (d *Generator) replaceDependents(dr *runstate.Declared) []*state.Resource {
	set := map[resource.URN]bool{dr.R.URN: true}
	var found []*state.Resource
	registered, unlock := d.LockRegistrations()
	for grew := true; grew; {
		grew = false
		for _, old := range d.Old.Resources {
			if old.Delete || old.External || set[old.URN] || !old.Custom || runstate.IsProvider(old.Type) || registered(old.URN) || !refersTo(old, set) {
				continue
			}
			set[old.URN] = true
			found = append(found, old)
			grew = true
		}
	}
	unlock()
	order := make(map[*state.Resource]int, len(d.Old.Resources))
	for i, r := range d.Old.Resources {
		order[r] = i
	}
	// Dependents first: the reverse of the state's dependency order.
	sort.Slice(found, func(i, j int) bool { return order[found[i]] > order[found[j]] })
	d.MarkAlong(found)
	return found
}

// refersTo reports whether the old record refers to a resource of set.
func refersTo(old *state.Resource, set map[resource.URN]bool) bool {
	if set[old.Parent] || set[runstate.ProviderURN(old.Provider)] || set[old.DeletedWith] {
		return true
	}
	for _, u := range old.Dependencies {
		if set[u] {
			return true
		}
	}
	for _, us := range old.PropertyDependencies {
		for _, u := range us {
			if set[u] {
				return true
			}
		}
	}
	return false
}

// decideDependentReplace decides the step of a resource replaced along
// with a delete-before-replace replacement it depends on: its old record
// is deleted by that replacement's step (during up, already), so its step
// is a delete-before-replace replacement whose create is left. Check runs
// without the old inputs, as for every replacement.
func (d *Generator) decideDependentReplace(ctx context.Context, dr *runstate.Declared, news resource.PropertyMap, seed []byte) (runstate.CustomStep, error) {
	old := dr.Old
	checked, err := d.check(ctx, dr, plan.OpReplace, resource.PropertyMap{}, news, seed)
	if err != nil {
		return runstate.CustomStep{}, err
	}
	cs := d.newCustomStep(dr, checked, seed)
	cs.Step.Op, cs.Step.DeleteBeforeReplace, cs.Step.OldInputs = plan.OpReplace, true, old.Inputs
	cs.Keys = resource.DiffKeys(old.Inputs, checked, nil)
	cs.Step.Keys = plan.ChangedPaths(old.Inputs, checked, cs.Keys)
	return cs, nil
}
