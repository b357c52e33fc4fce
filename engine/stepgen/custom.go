package stepgen

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
)

// DecideCustom resolves a custom resource's inputs, keeps the ignored ones,
// and asks its plugin to check and diff them: the result is the step to
// take. Preview and up decide alike; only the execution differs. A
// replacement is recorded (runstate.MarkReplacing), so that what is
// deleted with the resource is replaced too.
func (d *Generator) DecideCustom(ctx context.Context, dr *runstate.Declared) (runstate.CustomStep, error) {
	cs, err := d.decideCustom(ctx, dr)
	if err == nil && cs.Step.Op == plan.OpReplace {
		d.MarkReplacing(dr.R.URN)
	}
	return cs, err
}

func (d *Generator) decideCustom(ctx context.Context, dr *runstate.Declared) (runstate.CustomStep, error) {
	r, old := dr.R, dr.Old
	news, err := d.inputs(dr)
	if err != nil {
		return runstate.CustomStep{}, runstate.StepError(plan.OpCreate, r, fmt.Errorf("resolving its inputs: %w", err))
	}
	seed := d.seedFor(r.URN)
	switch {
	case (old == nil || old.External) && r.ImportID != "":
		return d.decideImport(ctx, dr, news, seed)
	case old == nil:
		checked, err := d.check(ctx, dr, plan.OpCreate, resource.PropertyMap{}, news, seed)
		if err != nil {
			return runstate.CustomStep{}, err
		}
		cs := d.newCustomStep(dr, checked, seed)
		cs.Step.Op, cs.Keys = plan.OpCreate, checked.SortedKeys()
		cs.Step.Keys = cs.Keys
		return cs, nil
	case old.External:
		return d.decideTakeOver(ctx, dr, news, seed)
	case d.ReplacedAlong(r.URN):
		return d.decideDependentReplace(ctx, dr, news, seed)
	}
	if err := IgnoreChanges(news, old.Inputs, r.IgnoreChanges); err != nil {
		return runstate.CustomStep{}, runstate.StepError(plan.OpUpdate, r, err)
	}
	checked, err := d.check(ctx, dr, plan.OpUpdate, old.Inputs, news, seed)
	if err != nil {
		return runstate.CustomStep{}, err
	}
	cs := d.newCustomStep(dr, checked, seed)
	cs.Step.OldInputs = old.Inputs
	diff, err := d.diff(ctx, dr, checked)
	if err != nil {
		return runstate.CustomStep{}, runstate.StepError(plan.OpUpdate, r, fmt.Errorf("comparing with its recorded state: %w", err), checked, old.Outputs)
	}
	decideFromDiff(&cs, old, diff, r.DeleteBeforeReplace, r.DeleteBeforeReplaceSet)
	replaceOnChanges(&cs, r)
	if cs.Step.Op != plan.OpReplace {
		return cs, nil
	}
	return cs, d.prepareReplace(ctx, dr, &cs)
}

// diff asks the plugin to compare checked with the recorded state, unless
// the resource is deleted with one this operation replaces: as Pulumi's
// engine does, it is then replaced too (its replace key "deletedWith"),
// since the other's delete deletes it.
func (d *Generator) diff(ctx context.Context, dr *runstate.Declared, checked resource.PropertyMap) (resource.DiffResponse, error) {
	r, old := dr.R, dr.Old
	if r.DeletedWith != "" && d.Replacing(r.DeletedWith) {
		return resource.DiffResponse{Changed: []string{"deletedWith"}, Replaces: []string{"deletedWith"}}, nil
	}
	return dr.Plugin.Diff(ctx, resource.DiffRequest{
		URN: r.URN, Type: r.Type, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: checked, IgnoreChanges: r.IgnoreChanges,
	})
}

// newCustomStep returns the step of a declared custom resource with its
// checked inputs (its op not yet decided).
func (d *Generator) newCustomStep(dr *runstate.Declared, checked resource.PropertyMap, seed []byte) runstate.CustomStep {
	r := dr.R
	rec := dr.NewRecord(checked)
	rec.CustomTimeouts = r.Timeouts
	unchecked := d.DryRun && dr.Prov != nil && dr.Prov.ConfigUnknown // the plugin could not Check
	return runstate.CustomStep{Rec: rec, Step: plan.Step{URN: r.URN, Type: r.Type, Deps: dr.Deps, NewInputs: checked,
		Protect: rec.Protect, RetainOnDelete: rec.RetainOnDelete, RandomSeed: seed, Unchecked: unchecked}}
}

// prepareReplace readies a replacement: Check runs again without the old
// inputs, on the program's inputs (defaults are recomputed for the new
// resource), and a delete-before-replace finds the dependents replaced
// with it.
func (d *Generator) prepareReplace(ctx context.Context, dr *runstate.Declared, cs *runstate.CustomStep) error {
	news, err := d.inputs(dr)
	if err != nil {
		return runstate.StepError(plan.OpReplace, dr.R, fmt.Errorf("resolving its inputs: %w", err))
	}
	checked, err := d.check(ctx, dr, plan.OpReplace, resource.PropertyMap{}, news, cs.Step.RandomSeed)
	if err != nil {
		return err
	}
	cs.Rec.Inputs, cs.Step.NewInputs = checked, checked
	if cs.Step.DeleteBeforeReplace {
		cs.Dependents = d.replaceDependents(dr)
	}
	return nil
}

// check asks the plugin to check news (olds: the recorded inputs, empty for
// a new resource). A refusal names the resource and each property.
func (d *Generator) check(ctx context.Context, dr *runstate.Declared, op plan.Op, olds, news resource.PropertyMap, seed []byte) (resource.PropertyMap, error) {
	r := dr.R
	checked, err := dr.Plugin.Check(ctx, resource.CheckRequest{URN: r.URN, Type: r.Type, Olds: olds, News: news, RandomSeed: seed})
	var cf *resource.CheckFailuresError
	switch {
	case errors.As(err, &cf):
		return nil, runstate.StepError(op, r, fmt.Errorf("the plugin refused its inputs: %w", err), news)
	case err != nil:
		return nil, runstate.StepError(op, r, fmt.Errorf("checking its inputs: %w", err), news)
	}
	return checked, nil
}

// seedFor returns the random seed of a resource's Check: the one the plan
// being executed gave it, or 32 new random bytes.
func (d *Generator) seedFor(urn resource.URN) []byte {
	if s := d.Planned.Seed(urn); len(s) > 0 {
		return s
	}
	s := make([]byte, 32)
	_, _ = rand.Read(s)
	return s
}

// inputs returns the registration's inputs for its step: a deep copy when
// paths are ignored (ignoreChanges writes into it), else the registration's
// own map, which nothing writes into.
func (d *Generator) inputs(dr *runstate.Declared) (resource.PropertyMap, error) {
	r := dr.R
	switch {
	case r.InputsErr != nil:
		return nil, r.InputsErr
	case r.Inputs == nil:
		return resource.PropertyMap{}, nil
	case len(r.IgnoreChanges) > 0:
		return resource.DeepCopy(r.Inputs).(resource.PropertyMap), nil
	}
	return r.Inputs, nil
}
