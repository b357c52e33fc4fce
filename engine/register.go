package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// runProvider records a default provider resource: a configurable
// plugin's is checked, diffed and configured (runConfiguredProvider); a
// built-in plugin's has no inputs and makes no call. A new provider, or one
// whose ID changes, is journaled before the resources that use it run.
func (d *deployment) runProvider(ctx context.Context, p *runstate.Provider) (func(), error) {
	if p.Configurable != nil {
		return d.runConfiguredProvider(ctx, p)
	}
	p.Plugin = p.Base
	rec := &state.Resource{
		URN: p.URN, Custom: true, ID: p.ID, Type: runstate.ProviderTypePrefix + p.Pkg,
		Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{},
	}
	if p.Old != nil {
		rec.Created, rec.Modified = p.Old.Created, p.Old.Modified
	} else {
		now := time.Now().UTC()
		rec.Created, rec.Modified = &now, &now
	}
	var err error
	op := OpSame
	switch {
	case p.Old == nil:
		op = OpCreate
		err = d.journalPlain(ctx, op, nil, rec)
	case p.Old.ID != p.ID:
		op = OpUpdate
		err = d.journalPlain(ctx, op, p.Old, rec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, p.URN, err)
	}
	return func() {
		d.News = append(d.News, rec)
		if p.Old != nil {
			d.Fate[p.Old] = nil
		}
	}, nil
}

// runRoot records the root stack resource; its outputs are set once every
// other step is done.
func (d *deployment) runRoot(ctx context.Context, dr *runstate.Declared) (func(), error) {
	rec := &state.Resource{URN: dr.R.URN, Type: resource.RootStackType, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}}
	return d.recordPlain(ctx, dr, rec)
}

// runComponent records a component resource (no plugin call).
func (d *deployment) runComponent(ctx context.Context, dr *runstate.Declared) (func(), error) {
	rec := d.newRecord(dr, resource.PropertyMap{})
	rec.Custom = false
	rec.Outputs = resource.PropertyMap{}
	return d.recordPlain(ctx, dr, rec)
}

// recordPlain records a resource that has no plugin: created when new
// (and journaled before its children run), same otherwise.
func (d *deployment) recordPlain(ctx context.Context, dr *runstate.Declared, rec *state.Resource) (func(), error) {
	op := OpCreate
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if old := dr.Old; old != nil {
		op = OpSame
		rec.Created, rec.Modified = old.Created, old.Modified
		if rec.Type == resource.RootStackType {
			rec.Outputs = old.Outputs
		}
	}
	if d.Planned != nil || d.DryRun {
		dr.Step = Step{Op: op, URN: rec.URN, Type: rec.Type, Deps: dr.Deps, NewInputs: rec.Inputs}
		if err := d.Planned.Check(&dr.Step); err != nil {
			d.StepFailed(op, rec.URN, rec.Type, err, now)
			return d.fail(dr, err), err
		}
	}
	if op == OpSame {
		return d.commit(dr, op, rec, nil, false), nil
	}
	d.StepStart(op, rec.URN, rec.Type, nil)
	if err := d.journalPlain(ctx, op, nil, rec); err != nil {
		err = runstate.StepError(op, dr.R, err)
		d.StepFailed(op, rec.URN, rec.Type, err, now)
		return d.fail(dr, err), err
	}
	d.StepDone(op, rec.URN, rec.Type, nil, now)
	return d.commit(dr, op, rec, nil, false), nil
}

// newRecord builds the state record of a declared resource before its
// plugin runs (no ID, no outputs).
func (d *deployment) newRecord(dr *runstate.Declared, inputs resource.PropertyMap) *state.Resource {
	r := dr.R
	rec := &state.Resource{
		URN: r.URN, Custom: r.Custom, Type: r.Type, Inputs: inputs,
		Protect: r.Protect, Dependencies: dr.Deps, PropertyDependencies: dr.PropDeps,
		Provider: dr.ProviderRef(), AdditionalSecretOutputs: r.AdditionalSecretOutputs,
		RetainOnDelete: r.RetainOnDelete, IgnoreChanges: r.IgnoreChanges,
	}
	rec.Parent = r.Parent
	return rec
}

// commit returns the function that records a finished step: the new record
// joins the snapshot, the old one leaves it (or stays condemned, for a
// replacement that creates first), and the registration's answer is set.
func (d *deployment) commit(dr *runstate.Declared, op Op, rec *state.Resource, keys []string, condemnOld bool) func() {
	return func() {
		d.News = append(d.News, rec)
		if old := dr.Old; old != nil {
			if condemnOld {
				c := *old
				c.Delete = true
				c.Protect = false // a protected resource is never replaced
				d.Fate[old] = &c
			} else {
				d.Fate[old] = nil
			}
		}
		d.Count(op, rec, keys)
		if d.DryRun && dr.Step.Op != "" {
			d.Plan = append(d.Plan, dr.Step)
		}
		dr.Answer = source.Answer{ID: rec.ID, IDKnown: rec.ID != "", Outputs: rec.Outputs, Absent: d.absentOutputs(dr, op)}
	}
}

// absentOutputs says what reading an output a resource's record does not
// hold gives the program: an error for a provider plugin's resource, whose
// outputs (a preview's predicted ones too) name every output it has;
// unknown in a preview whose provider configuration is not known (the
// plugin, not configured, predicts nothing); null otherwise.
func (d *deployment) absentOutputs(dr *runstate.Declared, op Op) program.Absent {
	p := dr.Prov
	switch {
	case p == nil || p.Configurable == nil:
		return program.AbsentNull
	case d.DryRun && p.ConfigUnknown && op != OpSame:
		return program.AbsentUnknown
	}
	return program.AbsentError
}

// fail returns the function that records a failed step.
func (d *deployment) fail(dr *runstate.Declared, err error) func() {
	return func() { dr.Err = err }
}

// inputs returns the registration's inputs for its step: a deep copy when
// paths are ignored (ignoreChanges writes into it), else the registration's
// own map, which nothing writes into.
func (d *deployment) inputs(dr *runstate.Declared) (resource.PropertyMap, error) {
	r := dr.R
	switch {
	case r.InputsErr != nil:
		return nil, r.InputsErr
	case len(r.IgnoreChanges) > 0:
		return deepCopy(r.Inputs), nil
	case r.Inputs == nil:
		return resource.PropertyMap{}, nil
	}
	return r.Inputs, nil
}

// deepCopy copies m with its nested maps and lists.
func deepCopy(m resource.PropertyMap) resource.PropertyMap {
	out := make(resource.PropertyMap, len(m))
	for k, v := range m {
		out[k] = deepCopyValue(v)
	}
	return out
}

func deepCopyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return map[string]any(deepCopy(x))
	case resource.PropertyMap:
		return deepCopy(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyValue(e)
		}
		return out
	case resource.Secret:
		return resource.Secret{Element: deepCopyValue(x.Element)}
	}
	return v
}
