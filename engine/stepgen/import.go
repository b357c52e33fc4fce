package stepgen

import (
	"context"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// decideImport decides the import of a resource declared with Import and
// not yet in the state: Read with only the ID, then Check (olds: the
// inputs read, news: the program's), then Diff, which must show no change.
// Read has no side effect, so a preview reads too.
func (d *Generator) decideImport(ctx context.Context, dr *runstate.Declared, news resource.PropertyMap, seed []byte) (runstate.CustomStep, error) {
	r := dr.R
	resp, err := dr.Plugin.Read(ctx, resource.ReadRequest{URN: r.URN, Type: r.Type, ID: r.ImportID})
	if err != nil {
		return runstate.CustomStep{}, runstate.StepError(plan.OpImport, r, fmt.Errorf("reading the resource with ID %q: %w", r.ImportID, err))
	}
	if resp.ID == "" {
		return runstate.CustomStep{}, runstate.StepError(plan.OpImport, r, fmt.Errorf("no resource with ID %q exists; check the ID given to Import", r.ImportID))
	}
	olds := resp.Inputs
	if olds == nil {
		olds = resource.PropertyMap{}
	}
	checked, err := d.check(ctx, dr, plan.OpImport, olds, news, seed)
	if err != nil {
		return runstate.CustomStep{}, err
	}
	diff, err := dr.Plugin.Diff(ctx, resource.DiffRequest{
		URN: r.URN, Type: r.Type, ID: resp.ID, OldInputs: olds, OldOutputs: resp.Outputs,
		NewInputs: checked, IgnoreChanges: r.IgnoreChanges,
	})
	if err != nil {
		return runstate.CustomStep{}, runstate.StepError(plan.OpImport, r, fmt.Errorf("comparing the program's inputs with the resource read: %w", err), checked, resp.Outputs)
	}
	cs := d.newCustomStep(dr, checked, seed)
	probe := runstate.CustomStep{Rec: cs.Rec}
	decideFromDiff(&probe, &state.Resource{Inputs: olds}, diff, false, false)
	if probe.Step.Op != plan.OpSame {
		return runstate.CustomStep{}, runstate.StepError(plan.OpImport, r, fmt.Errorf("the program's inputs differ from the resource with ID %q in %s; change the program to match the existing resource (or drop Import to create a new one)", r.ImportID, strings.Join(probe.Step.Keys, ", ")))
	}
	cs.Step.Op, cs.Read = plan.OpImport, &resp
	return cs, nil
}
