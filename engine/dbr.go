package engine

import (
	"context"
	"fmt"
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
// dependencies, parent or provider). They are marked replaced along and
// returned in delete order, dependents first.
func (d *deployment) replaceDependents(dr *runstate.Declared) []*state.Resource {
	set := map[resource.URN]bool{dr.R.URN: true}
	var found []*state.Resource
	registered, unlock := d.LockRegistrations()
	for grew := true; grew; {
		grew = false
		for _, old := range d.Old.Resources {
			if old.Delete || set[old.URN] || !old.Custom || runstate.IsProvider(old.Type) || registered(old.URN) || !refersTo(old, set) {
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
	if set[old.Parent] || set[runstate.ProviderURN(old.Provider)] {
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
func (d *deployment) decideDependentReplace(ctx context.Context, dr *runstate.Declared, news resource.PropertyMap, seed []byte) (customStep, error) {
	old := dr.Old
	checked, err := d.check(ctx, dr, OpReplace, resource.PropertyMap{}, news, seed)
	if err != nil {
		return customStep{}, err
	}
	cs := d.newCustomStep(dr, checked, seed)
	cs.step.Op, cs.step.DeleteBeforeReplace, cs.step.OldInputs = OpReplace, true, old.Inputs
	cs.keys = resource.DiffKeys(old.Inputs, checked, nil)
	cs.step.Keys = plan.ChangedPaths(old.Inputs, checked, cs.keys)
	return cs, nil
}

// deleteDependents deletes, in order, the dependents replaced along with a
// delete-before-replace replacement, and returns those it deleted. It
// refuses, before deleting any, when one is protected.
func (d *deployment) deleteDependents(ctx context.Context, dr *runstate.Declared, list []*state.Resource) ([]*state.Resource, error) {
	for _, old := range list {
		if old.Protect {
			return nil, fmt.Errorf("%s %q depends on it and would have to be replaced with it (it is replaced delete-before-replace), but it is protected; to allow the replacement, declare it with Protect(false) and run up again", old.Type, old.URN.Name())
		}
	}
	var deleted []*state.Resource
	for _, old := range list {
		plugin, err := d.PluginOf(ctx, old) // the provider its record names
		if err == nil {
			err = d.deleteResource(ctx, old, OpDeleteReplaced, plugin)
		}
		if err != nil {
			return deleted, runstate.RedactErr(fmt.Errorf("deleting %s %q, which depends on it, first: %w", old.Type, old.URN.Name(), err), old)
		}
		deleted = append(deleted, old)
	}
	return deleted, nil
}
