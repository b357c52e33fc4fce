package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// runProvider records a default provider resource: a configurable
// plugin's is checked, diffed and configured (runConfiguredProvider); a
// built-in plugin's has no inputs and makes no call. A new provider, or one
// whose ID changes, is journaled before the resources that use it run.
func (d *deployment) runProvider(ctx context.Context, p *providerRes) (func(), error) {
	if p.configurable != nil {
		return d.runConfiguredProvider(ctx, p)
	}
	p.plugin = p.base
	rec := &state.Resource{
		URN: p.urn, Custom: true, ID: p.id, Type: providerTypePrefix + p.pkg,
		Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{},
	}
	if p.old != nil {
		rec.Created, rec.Modified = p.old.Created, p.old.Modified
	} else {
		now := time.Now().UTC()
		rec.Created, rec.Modified = &now, &now
	}
	var err error
	op := OpSame
	switch {
	case p.old == nil:
		op = OpCreate
		err = d.journalPlain(ctx, op, nil, rec)
	case p.old.ID != p.id:
		op = OpUpdate
		err = d.journalPlain(ctx, op, p.old, rec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, p.urn, err)
	}
	return func() {
		d.news = append(d.news, rec)
		if p.old != nil {
			d.fate[p.old] = nil
		}
	}, nil
}

// runRoot records the root stack resource; its outputs are set once every
// other step is done.
func (d *deployment) runRoot(ctx context.Context, dr *declared) (func(), error) {
	rec := &state.Resource{URN: dr.r.URN, Type: resource.RootStackType, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}}
	return d.recordPlain(ctx, dr, rec)
}

// runComponent records a component resource (no plugin call).
func (d *deployment) runComponent(ctx context.Context, dr *declared) (func(), error) {
	rec := d.newRecord(dr, resource.PropertyMap{})
	rec.Custom = false
	rec.Outputs = resource.PropertyMap{}
	return d.recordPlain(ctx, dr, rec)
}

// recordPlain records a resource that has no plugin: created when new
// (and journaled before its children run), same otherwise.
func (d *deployment) recordPlain(ctx context.Context, dr *declared, rec *state.Resource) (func(), error) {
	op := OpCreate
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if old := dr.old; old != nil {
		op = OpSame
		rec.Created, rec.Modified = old.Created, old.Modified
		if rec.Type == resource.RootStackType {
			rec.Outputs = old.Outputs
		}
	}
	if d.planned != nil || d.dryRun {
		dr.step = Step{Op: op, URN: rec.URN, Type: rec.Type, Deps: dr.deps, NewInputs: rec.Inputs}
		if err := d.planned.Check(&dr.step); err != nil {
			d.stepFailed(op, rec.URN, rec.Type, err, now)
			return d.fail(dr, err), err
		}
	}
	if op == OpSame {
		return d.commit(dr, op, rec, nil, false), nil
	}
	d.stepStart(op, rec.URN, rec.Type, nil)
	if err := d.journalPlain(ctx, op, nil, rec); err != nil {
		err = stepError(op, dr.r, err)
		d.stepFailed(op, rec.URN, rec.Type, err, now)
		return d.fail(dr, err), err
	}
	d.stepDone(op, rec.URN, rec.Type, nil, now)
	return d.commit(dr, op, rec, nil, false), nil
}

// newRecord builds the state record of a declared resource before its
// plugin runs (no ID, no outputs).
func (d *deployment) newRecord(dr *declared, inputs resource.PropertyMap) *state.Resource {
	r := dr.r
	rec := &state.Resource{
		URN: r.URN, Custom: r.Custom, Type: r.Type, Inputs: inputs,
		Protect: r.Protect, Dependencies: dr.deps, PropertyDependencies: dr.propDeps,
		Provider: dr.providerRef(), AdditionalSecretOutputs: r.AdditionalSecretOutputs,
		RetainOnDelete: r.RetainOnDelete, IgnoreChanges: r.IgnoreChanges,
	}
	rec.Parent = r.Parent
	return rec
}

// commit returns the function that records a finished step: the new record
// joins the snapshot, the old one leaves it (or stays condemned, for a
// replacement that creates first), and the registration's answer is set.
func (d *deployment) commit(dr *declared, op Op, rec *state.Resource, keys []string, condemnOld bool) func() {
	return func() {
		d.news = append(d.news, rec)
		if old := dr.old; old != nil {
			if condemnOld {
				c := *old
				c.Delete = true
				c.Protect = false // a protected resource is never replaced
				d.fate[old] = &c
			} else {
				d.fate[old] = nil
			}
		}
		d.count(op, rec, keys)
		if d.dryRun && dr.step.Op != "" {
			d.plan = append(d.plan, dr.step)
		}
		dr.answer = source.Answer{ID: rec.ID, IDKnown: rec.ID != "", Outputs: rec.Outputs, Absent: d.absentOutputs(dr, op)}
	}
}

// absentOutputs says what reading an output a resource's record does not
// hold gives the program: an error for a provider plugin's resource, whose
// outputs (a preview's predicted ones too) name every output it has;
// unknown in a preview whose provider configuration is not known (the
// plugin, not configured, predicts nothing); null otherwise.
func (d *deployment) absentOutputs(dr *declared, op Op) program.Absent {
	p := dr.prov
	switch {
	case p == nil || p.configurable == nil:
		return program.AbsentNull
	case d.dryRun && p.configUnknown && op != OpSame:
		return program.AbsentUnknown
	}
	return program.AbsentError
}

// fail returns the function that records a failed step.
func (d *deployment) fail(dr *declared, err error) func() {
	return func() { dr.err = err }
}

// stepError names the step and resource in err and redacts the secrets of
// the given property maps from its message.
func stepError(op Op, r *source.Registration, err error, secretsFrom ...resource.PropertyMap) error {
	msg := fmt.Sprintf("%s %s %q: %v", op, r.Type, r.Name, err)
	return &redactedError{msg: redact(msg, secretsFrom...), err: err}
}

// inputs returns the registration's inputs for its step: a deep copy when
// paths are ignored (ignoreChanges writes into it), else the registration's
// own map, which nothing writes into.
func (d *deployment) inputs(dr *declared) (resource.PropertyMap, error) {
	r := dr.r
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
