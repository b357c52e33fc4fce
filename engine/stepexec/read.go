package stepexec

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// ExecRead runs the decided step of a read resource (stepgen's
// DecideRead): the plugin's Read of the ID the program gave (in a preview
// too, as Pulumi reads in previews; not while the ID is unknown), then its
// record, external. A record that changes (a new read, new outputs, a
// read-replacement) is journaled; a read-replacement condemns the managed
// resource it replaces, deleted at the end. A read that finds nothing
// fails the step, naming the ID.
func (d *Executor) ExecRead(ctx context.Context, dr *runstate.Declared, cs *runstate.CustomStep) (func(), error) {
	r, rec, op, old := dr.R, cs.Rec, cs.Step.Op, dr.Old
	start := time.Now()
	d.StepStart(op, r.URN, r.Type, nil)
	failed := func(err error) (func(), error) {
		err = runstate.StepError(op, r, err, rec.Inputs)
		d.StepFailed(op, r.URN, r.Type, err, start)
		return d.FailStep(dr, err), err
	}
	if rec.ID == resource.UnknownStringValue { // a preview, the ID made by a step not run
		rec.ID, rec.Outputs = "", resource.PropertyMap{}
		d.StepDone(op, r.URN, r.Type, nil, start)
		return d.commit(dr, op, rec, nil, false), nil
	}
	resp, err := dr.Plugin.Read(ctx, resource.ReadRequest{URN: r.URN, Type: r.Type, ID: rec.ID, Inputs: rec.Inputs, Outputs: rec.Inputs})
	switch {
	case err != nil:
		return failed(fmt.Errorf("reading ID %q: %w", rec.ID, err))
	case resp.ID == "":
		return failed(fmt.Errorf("no %s with ID %q exists; check the ID the program reads (its get), or create the resource first", r.Type, rec.ID))
	}
	rec.ID = resp.ID
	rec.Outputs = resource.SecretOutputs(resp.Outputs, rec.Inputs, r.AdditionalSecretOutputs)
	keys, changed := readChanges(old, rec)
	if old != nil {
		rec.Created, rec.Modified = old.Created, old.Modified
		if changed {
			now := time.Now().UTC()
			rec.Modified = &now
		}
	}
	if changed || op == plan.OpReadReplacement {
		if err := d.JournalPlain(ctx, op, old, rec); err != nil {
			return failed(err)
		}
	}
	d.StepDone(op, r.URN, r.Type, keys, start)
	counted := op
	if !changed && op == plan.OpRead {
		counted = plan.OpSame // read as recorded: nothing changed
	}
	// A read-replacement condemns the managed resource, deleted at the end.
	return d.commit(dr, counted, rec, keys, op == plan.OpReadReplacement), nil
}

// readChanges says how a read's record differs from the recorded one: the
// outputs that changed, and whether the record changed at all (a new read,
// another ID, provider or inputs, a resource the stack managed before).
func readChanges(old, rec *state.Resource) ([]string, bool) {
	if old == nil {
		return nil, true
	}
	keys := resource.DiffKeys(old.Outputs, rec.Outputs, nil)
	changed := len(keys) > 0 || !old.External || old.ID != rec.ID || old.Provider != rec.Provider ||
		old.Parent != rec.Parent || len(resource.DiffKeys(old.Inputs, rec.Inputs, nil)) > 0
	return keys, changed
}
