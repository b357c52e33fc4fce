package stepgen

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// Read resources, as Pulumi's engine records them: a program's get of an
// existing resource (source.Registration.ReadID) is recorded with
// External set, its inputs the properties the program gave, its outputs
// what the plugin's Read returns. The stack never changes such a resource:
// gone from the program, or on destroy, it only leaves the state
// (read-discard); a resource the program registers where a read one was
// is created and the read one dropped (discard-replaced).

// DecideRead decides the step of a read: read, or read-replacement when
// the URN's recorded resource is one the stack manages and has another ID
// (that resource is then deleted at the end, as the old half of a
// replacement; of the same ID, it is only let go). The record has no
// outputs yet: the executor's Read (stepexec.Executor.ExecRead) gives
// them, in a preview too, as Pulumi reads in previews.
func (d *Generator) DecideRead(dr *runstate.Declared) (runstate.CustomStep, error) {
	r, old := dr.R, dr.Old
	news, err := d.inputs(dr)
	if err != nil {
		return runstate.CustomStep{}, runstate.StepError(plan.OpRead, r, fmt.Errorf("resolving its properties: %w", err))
	}
	rec := dr.NewRecord(news)
	rec.ID, rec.External = r.ReadID, true
	rec.Protect, rec.RetainOnDelete, rec.IgnoreChanges, rec.PropertyDependencies = false, false, nil, nil
	op := plan.OpRead
	if old != nil && !old.External && old.ID != r.ReadID {
		if old.Protect {
			return runstate.CustomStep{}, runstate.StepError(plan.OpReadReplacement, r, fmt.Errorf("the stack manages a protected resource of this URN with ID %q, which reading ID %q would delete; read it under another name, or unprotect the managed one first", old.ID, r.ReadID))
		}
		op = plan.OpReadReplacement
	}
	return runstate.CustomStep{Rec: rec, Step: plan.Step{Op: op, URN: r.URN, Type: r.Type, Deps: dr.Deps,
		OldInputs: runstate.InputsOf(old), NewInputs: news}}, nil
}

// decideTakeOver decides the step of a resource the program registers
// where the state records a read (external) one: Pulumi creates the
// managed resource and drops the read one from the state at the end, as a
// replacement that never deletes.
func (d *Generator) decideTakeOver(ctx context.Context, dr *runstate.Declared, news resource.PropertyMap, seed []byte) (runstate.CustomStep, error) {
	checked, err := d.check(ctx, dr, plan.OpReplace, resource.PropertyMap{}, news, seed)
	if err != nil {
		return runstate.CustomStep{}, err
	}
	cs := d.newCustomStep(dr, checked, seed)
	cs.Step.Op, cs.Step.OldInputs = plan.OpReplace, dr.Old.Inputs
	cs.Keys = checked.SortedKeys()
	cs.Step.Keys = cs.Keys
	return cs, nil
}

// DeleteOp is the op that removes the recorded resource r: a delete (or
// the delete of a replacement's old half, replaced), or for a read
// resource the discard that deletes nothing.
func DeleteOp(r *state.Resource, replaced bool) plan.Op {
	switch {
	case r.External && replaced:
		return plan.OpDiscardReplaced
	case r.External:
		return plan.OpReadDiscard
	case replaced:
		return plan.OpDeleteReplaced
	}
	return plan.OpDelete
}
