package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// customStep is the decided step of a custom resource: the step value and
// the record it makes (checked inputs; no ID or outputs yet).
type customStep struct {
	step Step
	rec  *state.Resource
	keys []string // the changed top-level properties, for events and Result.Steps
}

// runCustom decides a custom resource's step, checks it against the plan
// being executed (if any) and executes it.
func (d *deployment) runCustom(ctx context.Context, dr *declared) (func(), error) {
	cs, err := d.decideCustom(ctx, dr)
	if err != nil {
		return d.failEarly(dr, err)
	}
	dr.step = cs.step
	if err := d.planned.Check(&cs.step); err != nil {
		d.stepFailed(cs.step.Op, dr.r.URN, dr.r.Type, err, time.Now())
		return d.fail(dr, err), err
	}
	return d.execCustom(ctx, dr, &cs)
}

// decideCustom resolves a custom resource's inputs, keeps the ignored ones,
// and asks its plugin to check and diff them: the result is the step to
// take. Preview and up decide alike; only the execution differs.
func (d *deployment) decideCustom(ctx context.Context, dr *declared) (customStep, error) {
	r := dr.r
	news, err := d.decls.Inputs(dr.i)
	if err != nil {
		return customStep{}, stepError(OpCreate, r, fmt.Errorf("resolving its inputs: %w", err))
	}
	old := dr.old
	var olds resource.PropertyMap
	if old != nil {
		olds = old.Inputs
		applyIgnoreChanges(news, olds, r.IgnoreChanges)
	}
	checked, err := dr.plugin.Check(ctx, resource.CheckRequest{URN: r.URN, Type: r.Type, Olds: olds, News: news})
	if err != nil {
		return customStep{}, stepError(OpCreate, r, fmt.Errorf("checking its inputs: %w", err), news)
	}
	rec := d.newRecord(dr, checked)
	cs := customStep{rec: rec, step: Step{URN: r.URN, Type: r.Type, Deps: dr.deps, NewInputs: checked,
		Protect: rec.Protect, RetainOnDelete: rec.RetainOnDelete}}
	if old == nil {
		cs.step.Op, cs.keys = OpCreate, sortedKeys(checked)
		cs.step.Keys = cs.keys
		return cs, nil
	}
	cs.step.OldInputs = old.Inputs
	diff, err := dr.plugin.Diff(ctx, resource.DiffRequest{
		URN: r.URN, Type: r.Type, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: checked, IgnoreChanges: r.IgnoreChanges,
	})
	if err != nil {
		return customStep{}, stepError(OpUpdate, r, fmt.Errorf("comparing with its recorded state: %w", err), checked, old.Outputs)
	}
	switch {
	case len(diff.Changed) == 0 && len(diff.Replaces) == 0:
		cs.step.Op = OpSame
		return cs, nil
	case len(diff.Replaces) > 0:
		cs.step.Op, cs.keys = OpReplace, diff.Changed
		if len(cs.keys) == 0 {
			cs.keys = diff.Replaces
		}
		cs.step.Replaces = plan.ChangedPaths(old.Inputs, checked, diff.Replaces)
		cs.step.DeleteBeforeReplace = diff.DeleteBeforeReplace || r.DeleteBeforeReplace
	default:
		cs.step.Op, cs.keys = OpUpdate, diff.Changed
	}
	cs.step.Keys = plan.ChangedPaths(old.Inputs, checked, cs.keys)
	return cs, nil
}

// failEarly reports a step that failed before its operation started.
func (d *deployment) failEarly(dr *declared, err error) (func(), error) {
	op := OpCreate
	if dr.old != nil {
		op = OpUpdate
	}
	d.stepFailed(op, dr.r.URN, dr.r.Type, err, time.Now())
	return d.fail(dr, err), err
}

// applyIgnoreChanges keeps the recorded values of the ignored properties.
func applyIgnoreChanges(news, olds resource.PropertyMap, keys []string) {
	for _, k := range keys {
		if v, ok := olds[k]; ok {
			news[k] = v
		} else {
			delete(news, k)
		}
	}
}

// secretOutputs marks secret the outputs named by extra and those whose key
// names a secret input. It copies outs only when it changes something.
func secretOutputs(outs, ins resource.PropertyMap, extra []string) resource.PropertyMap {
	var out resource.PropertyMap
	mark := func(k string) {
		v, ok := outs[k]
		if !ok {
			return
		}
		if _, already := v.(resource.Secret); already {
			return
		}
		if out == nil {
			out = make(resource.PropertyMap, len(outs))
			for key, val := range outs {
				out[key] = val
			}
		}
		plain, _ := resource.UnsecretDeep(v)
		out[k] = resource.Secret{Element: plain}
	}
	for _, k := range extra {
		mark(k)
	}
	for k, v := range ins {
		if resource.ContainsSecret(v) {
			mark(k)
		}
	}
	if out == nil {
		if outs == nil {
			return resource.PropertyMap{}
		}
		return outs
	}
	return out
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m resource.PropertyMap) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
