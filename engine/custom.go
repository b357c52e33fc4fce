package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepgen"
)

// customStep is the decided step of a custom resource: the step value and
// the record it makes (checked inputs; no ID or outputs yet).
type customStep struct {
	step Step
	rec  *state.Resource
	keys []string // the changed top-level properties, for events and Result.Steps
	// read is what Read returned for an import.
	read *resource.ReadResponse
	// dependents are the old records replaced along with a
	// delete-before-replace replacement, in the order they are deleted.
	dependents []*state.Resource
}

// runCustom decides a custom resource's step, checks it against the plan
// being executed (if any) and executes it.
func (d *deployment) runCustom(ctx context.Context, dr *runstate.Declared) (func(), error) {
	cs, err := d.decideCustom(ctx, dr)
	if err != nil {
		return d.failEarly(dr, err)
	}
	dr.Step = cs.step
	if err := d.Planned.Check(&cs.step); err != nil {
		d.StepFailed(cs.step.Op, dr.R.URN, dr.R.Type, err, time.Now())
		return d.fail(dr, err), err
	}
	return d.execCustom(ctx, dr, &cs)
}

// decideCustom resolves a custom resource's inputs, keeps the ignored ones,
// and asks its plugin to check and diff them: the result is the step to
// take. Preview and up decide alike; only the execution differs.
func (d *deployment) decideCustom(ctx context.Context, dr *runstate.Declared) (customStep, error) {
	r, old := dr.R, dr.Old
	news, err := d.inputs(dr)
	if err != nil {
		return customStep{}, runstate.StepError(OpCreate, r, fmt.Errorf("resolving its inputs: %w", err))
	}
	seed := d.seedFor(r.URN)
	switch {
	case old == nil && r.ImportID != "":
		return d.decideImport(ctx, dr, news, seed)
	case old == nil:
		checked, err := d.check(ctx, dr, OpCreate, resource.PropertyMap{}, news, seed)
		if err != nil {
			return customStep{}, err
		}
		cs := d.newCustomStep(dr, checked, seed)
		cs.step.Op, cs.keys = OpCreate, sortedKeys(checked)
		cs.step.Keys = cs.keys
		return cs, nil
	case d.ReplacedAlong(r.URN):
		return d.decideDependentReplace(ctx, dr, news, seed)
	}
	if err := stepgen.IgnoreChanges(news, old.Inputs, r.IgnoreChanges); err != nil {
		return customStep{}, runstate.StepError(OpUpdate, r, err)
	}
	checked, err := d.check(ctx, dr, OpUpdate, old.Inputs, news, seed)
	if err != nil {
		return customStep{}, err
	}
	cs := d.newCustomStep(dr, checked, seed)
	cs.step.OldInputs = old.Inputs
	diff, err := dr.Plugin.Diff(ctx, resource.DiffRequest{
		URN: r.URN, Type: r.Type, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: checked, IgnoreChanges: r.IgnoreChanges,
	})
	if err != nil {
		return customStep{}, runstate.StepError(OpUpdate, r, fmt.Errorf("comparing with its recorded state: %w", err), checked, old.Outputs)
	}
	decideFromDiff(&cs, old, diff, r.DeleteBeforeReplace, r.DeleteBeforeReplaceSet)
	replaceOnChanges(&cs, r)
	if cs.step.Op != OpReplace {
		return cs, nil
	}
	return cs, d.prepareReplace(ctx, dr, &cs)
}

// newCustomStep returns the step of a declared custom resource with its
// checked inputs (its op not yet decided).
func (d *deployment) newCustomStep(dr *runstate.Declared, checked resource.PropertyMap, seed []byte) customStep {
	r := dr.R
	rec := d.newRecord(dr, checked)
	rec.CustomTimeouts = r.Timeouts
	unchecked := d.DryRun && dr.Prov != nil && dr.Prov.ConfigUnknown // the plugin could not Check
	return customStep{rec: rec, step: Step{URN: r.URN, Type: r.Type, Deps: dr.Deps, NewInputs: checked,
		Protect: rec.Protect, RetainOnDelete: rec.RetainOnDelete, RandomSeed: seed, Unchecked: unchecked}}
}

// prepareReplace readies a replacement: Check runs again without the old
// inputs, on the program's inputs (defaults are recomputed for the new
// resource), and a delete-before-replace finds the dependents replaced
// with it.
func (d *deployment) prepareReplace(ctx context.Context, dr *runstate.Declared, cs *customStep) error {
	news, err := d.inputs(dr)
	if err != nil {
		return runstate.StepError(OpReplace, dr.R, fmt.Errorf("resolving its inputs: %w", err))
	}
	checked, err := d.check(ctx, dr, OpReplace, resource.PropertyMap{}, news, cs.step.RandomSeed)
	if err != nil {
		return err
	}
	cs.rec.Inputs, cs.step.NewInputs = checked, checked
	if cs.step.DeleteBeforeReplace {
		cs.dependents = d.replaceDependents(dr)
	}
	return nil
}

// check asks the plugin to check news (olds: the recorded inputs, empty for
// a new resource). A refusal names the resource and each property.
func (d *deployment) check(ctx context.Context, dr *runstate.Declared, op Op, olds, news resource.PropertyMap, seed []byte) (resource.PropertyMap, error) {
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
func (d *deployment) seedFor(urn resource.URN) []byte {
	if s := d.Planned.Seed(urn); len(s) > 0 {
		return s
	}
	s := make([]byte, 32)
	_, _ = rand.Read(s)
	return s
}

// failEarly reports a step that failed before its operation started.
func (d *deployment) failEarly(dr *runstate.Declared, err error) (func(), error) {
	op := OpCreate
	switch {
	case dr.Old != nil:
		op = OpUpdate
	case dr.R.ImportID != "":
		op = OpImport
	}
	d.StepFailed(op, dr.R.URN, dr.R.Type, err, time.Now())
	return d.fail(dr, err), err
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
