package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

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
	dr.step = &cs.step
	if err := d.planned.check(&cs.step); err != nil {
		d.stepFailed(cs.step.Op, dr.r.urn, dr.r.typ, err, time.Now())
		return d.fail(dr, err), err
	}
	switch cs.step.Op {
	case OpSame:
		return d.same(dr, cs.rec)
	case OpReplace:
		return d.replace(ctx, dr, cs)
	case OpUpdate:
		return d.update(ctx, dr, cs.rec, cs.keys)
	}
	return d.create(ctx, dr, cs.rec, OpCreate, nil, cs.keys)
}

// decideCustom resolves a custom resource's inputs, keeps the ignored ones,
// and asks its plugin to check and diff them: the result is the step to
// take. Preview and up decide alike; only the execution differs.
func (d *deployment) decideCustom(ctx context.Context, dr *declared) (*customStep, error) {
	r := dr.r
	v, err := resolveValue(map[string]any(r.inputs))
	if err != nil {
		return nil, stepError(OpCreate, r, fmt.Errorf("resolving its inputs: %w", err))
	}
	news := resource.PropertyMap(v.(map[string]any))
	old := dr.old
	var olds resource.PropertyMap
	if old != nil {
		olds = old.Inputs
		applyIgnoreChanges(news, olds, r.opts.ignoreChanges)
	}
	checked, err := dr.plugin.Check(ctx, resource.CheckRequest{URN: r.urn, Type: r.typ, Olds: olds, News: news})
	if err != nil {
		return nil, stepError(OpCreate, r, fmt.Errorf("checking its inputs: %w", err), news)
	}
	cs := &customStep{rec: d.newRecord(dr, checked), step: Step{URN: r.urn, Type: r.typ, Deps: dr.deps, NewInputs: checked}}
	if old == nil {
		cs.step.Op, cs.keys = OpCreate, sortedKeys(checked)
		cs.step.Keys = cs.keys
		return cs, nil
	}
	cs.step.OldInputs = old.Inputs
	diff, err := dr.plugin.Diff(ctx, resource.DiffRequest{
		URN: r.urn, Type: r.typ, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: checked, IgnoreChanges: r.opts.ignoreChanges,
	})
	if err != nil {
		return nil, stepError(OpUpdate, r, fmt.Errorf("comparing with its recorded state: %w", err), checked, old.Outputs)
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
		cs.step.Replaces = changedPaths(old.Inputs, checked, diff.Replaces)
		cs.step.DeleteBeforeReplace = diff.DeleteBeforeReplace || r.opts.deleteBeforeReplace
	default:
		cs.step.Op, cs.keys = OpUpdate, diff.Changed
	}
	cs.step.Keys = changedPaths(old.Inputs, checked, cs.keys)
	return cs, nil
}

// failEarly reports a step that failed before its operation started.
func (d *deployment) failEarly(dr *declared, err error) (func(), error) {
	op := OpCreate
	if dr.old != nil {
		op = OpUpdate
	}
	d.stepFailed(op, dr.r.urn, dr.r.typ, err, time.Now())
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

// create runs a create (or the create of a replacement). journalOld is the
// record being replaced, for the journal; keys are the changed properties.
func (d *deployment) create(ctx context.Context, dr *declared, rec *state.Resource, op Op, journalOld *state.Resource, keys []string) (func(), error) {
	r := dr.r
	start := time.Now()
	d.stepStart(op, r.urn, r.typ, keys)
	failed := func(err error) (func(), error) {
		err = stepError(op, r, err, rec.Inputs)
		d.stepFailed(op, r.urn, r.typ, err, start)
		return d.fail(dr, err), err
	}
	seq, err := d.begin(ctx, op, journalOld, rec)
	if err != nil {
		return failed(err)
	}
	resp, err := dr.plugin.Create(ctx, resource.CreateRequest{URN: r.urn, Type: r.typ, Inputs: rec.Inputs, Preview: d.dryRun})
	if err != nil {
		if jerr := d.end(ctx, seq, false, op, journalOld, nil); jerr != nil {
			err = fmt.Errorf("%w (and %v)", err, jerr)
		}
		return failed(err)
	}
	done := *rec
	done.ID = resp.ID
	done.Outputs = secretOutputs(resp.Outputs, rec.Inputs, r.opts.additionalSecretOutputs)
	now := time.Now().UTC()
	done.Created, done.Modified = &now, &now
	condemn := op == OpCreateReplacement && journalOld != nil
	commit := d.commit(dr, op, &done, keys, condemn)
	if err := d.end(ctx, seq, true, op, journalOld, &done); err != nil {
		_, ferr := failed(err)
		return commit, ferr
	}
	d.stepDone(op, r.urn, r.typ, keys, start)
	return commit, nil
}

// same records a resource whose inputs did not change.
func (d *deployment) same(dr *declared, rec *state.Resource) (func(), error) {
	old := dr.old
	rec.ID = old.ID
	rec.Outputs = secretOutputs(old.Outputs, rec.Inputs, dr.r.opts.additionalSecretOutputs)
	rec.Created, rec.Modified = old.Created, old.Modified
	if d.ev.enabled() {
		d.ev.emit(Event{Type: EventStepDone, Op: OpSame, URN: rec.URN, ResourceType: rec.Type})
	}
	return d.commit(dr, OpSame, rec, nil, false), nil
}

// update changes a resource in place.
func (d *deployment) update(ctx context.Context, dr *declared, rec *state.Resource, keys []string) (func(), error) {
	r, old := dr.r, dr.old
	start := time.Now()
	d.stepStart(OpUpdate, r.urn, r.typ, keys)
	rec.ID = old.ID
	rec.Created = old.Created
	failed := func(err error) (func(), error) {
		err = stepError(OpUpdate, r, err, rec.Inputs, old.Outputs)
		d.stepFailed(OpUpdate, r.urn, r.typ, err, start)
		return d.fail(dr, err), err
	}
	seq, err := d.begin(ctx, OpUpdate, old, rec)
	if err != nil {
		return failed(err)
	}
	resp, err := dr.plugin.Update(ctx, resource.UpdateRequest{
		URN: r.urn, Type: r.typ, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: rec.Inputs, Preview: d.dryRun,
	})
	if err != nil {
		err = explainGone(ctx, dr.plugin, old, err)
		if jerr := d.end(ctx, seq, false, OpUpdate, old, nil); jerr != nil {
			err = fmt.Errorf("%w (and %v)", err, jerr)
		}
		return failed(err)
	}
	done := *rec
	done.Outputs = secretOutputs(resp.Outputs, rec.Inputs, r.opts.additionalSecretOutputs)
	now := time.Now().UTC()
	done.Modified = &now
	commit := d.commit(dr, OpUpdate, &done, keys, false)
	if err := d.end(ctx, seq, true, OpUpdate, old, &done); err != nil {
		_, ferr := failed(err)
		return commit, ferr
	}
	d.stepDone(OpUpdate, r.urn, r.typ, keys, start)
	return commit, nil
}

// replace replaces a resource: by default the replacement is created first
// and the old resource deleted at the end of the operation; with
// delete-before-replace (asked by the plugin or the option) the old
// resource is deleted first.
func (d *deployment) replace(ctx context.Context, dr *declared, cs *customStep) (func(), error) {
	r, old, rec, keys := dr.r, dr.old, cs.rec, cs.keys
	if r.opts.protect {
		err := fmt.Errorf("%s %s %q is protected, so it cannot be replaced (changed: %v); to allow the replacement, declare it with Protect(false) and run up again", OpReplace, r.typ, r.name, cs.step.Replaces)
		d.stepFailed(OpReplace, r.urn, r.typ, err, time.Now())
		return d.fail(dr, err), err
	}
	if !cs.step.DeleteBeforeReplace {
		return d.create(ctx, dr, rec, OpCreateReplacement, old, keys)
	}
	unprotected := *old
	unprotected.Protect = false // the program no longer protects it (checked above)
	if err := d.deleteResource(ctx, &unprotected, OpDeleteReplaced, dr.plugin); err != nil {
		err = stepError(OpDeleteReplaced, r, err, old.Inputs, old.Outputs)
		return d.fail(dr, err), err
	}
	commit, err := d.create(ctx, dr, rec, OpCreateReplacement, nil, keys)
	if err != nil {
		return func() {
			d.fate[old] = nil
			commit()
		}, err
	}
	return commit, nil
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
		plain, _ := unsecretDeep(v)
		out[k] = resource.Secret{Element: plain}
	}
	for _, k := range extra {
		mark(k)
	}
	for k, v := range ins {
		if containsSecret(v) {
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
