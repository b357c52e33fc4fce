package stepexec

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// RecordBuiltinProvider records the default provider of a built-in
// plugin, which has no inputs and makes no call. A new provider, or one
// whose ID changes, is journaled before the resources that use it run.
func (d *Executor) RecordBuiltinProvider(ctx context.Context, p *runstate.Provider) (func(), error) {
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
	op := plan.OpSame
	switch {
	case p.Old == nil:
		op = plan.OpCreate
		err = d.JournalPlain(ctx, op, nil, rec)
	case p.Old.ID != p.ID:
		op = plan.OpUpdate
		err = d.JournalPlain(ctx, op, p.Old, rec)
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

// RunRoot records the root stack resource; its outputs are set once every
// other step is done.
func (d *Executor) RunRoot(ctx context.Context, dr *runstate.Declared) (func(), error) {
	rec := &state.Resource{URN: dr.R.URN, Type: resource.RootStackType, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}}
	return d.recordPlain(ctx, dr, rec)
}

// RunComponent records a component resource (no plugin call).
func (d *Executor) RunComponent(ctx context.Context, dr *runstate.Declared) (func(), error) {
	rec := dr.NewRecord(resource.PropertyMap{})
	rec.Custom = false
	rec.Outputs = resource.PropertyMap{}
	return d.recordPlain(ctx, dr, rec)
}

// recordPlain records a resource that has no plugin: created when new
// (and journaled before its children run), same otherwise.
func (d *Executor) recordPlain(ctx context.Context, dr *runstate.Declared, rec *state.Resource) (func(), error) {
	op := plan.OpCreate
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if old := dr.Old; old != nil {
		op = plan.OpSame
		rec.Created, rec.Modified = old.Created, old.Modified
		if rec.Type == resource.RootStackType {
			rec.Outputs = old.Outputs
		}
	}
	if d.Planned != nil || d.DryRun {
		dr.Step = plan.Step{Op: op, URN: rec.URN, Type: rec.Type, Deps: dr.Deps, NewInputs: rec.Inputs}
		if err := d.Planned.Check(&dr.Step); err != nil {
			d.StepFailed(op, rec.URN, rec.Type, err, now)
			return d.FailStep(dr, err), err
		}
	}
	if op == plan.OpSame {
		return d.commit(dr, op, rec, nil, false), nil
	}
	d.StepStart(op, rec.URN, rec.Type, nil)
	if err := d.JournalPlain(ctx, op, nil, rec); err != nil {
		err = runstate.StepError(op, dr.R, err)
		d.StepFailed(op, rec.URN, rec.Type, err, now)
		return d.FailStep(dr, err), err
	}
	d.StepDone(op, rec.URN, rec.Type, nil, now)
	return d.commit(dr, op, rec, nil, false), nil
}

// commit returns the function that records a finished step: the new record
// joins the snapshot, the old one leaves it (or stays condemned, for a
// replacement that creates first), and the registration's answer is set.
func (d *Executor) commit(dr *runstate.Declared, op plan.Op, rec *state.Resource, keys []string, condemnOld bool) func() {
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
func (d *Executor) absentOutputs(dr *runstate.Declared, op plan.Op) program.Absent {
	p := dr.Prov
	switch {
	case p == nil || p.Configurable == nil:
		return program.AbsentNull
	case d.DryRun && p.ConfigUnknown && op != plan.OpSame:
		return program.AbsentUnknown
	}
	return program.AbsentError
}

// FailStep returns the function that records a failed step.
func (d *Executor) FailStep(dr *runstate.Declared, err error) func() {
	return func() { dr.Err = err }
}
