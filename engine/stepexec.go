package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// execCustom executes the decided step of a custom resource: same records
// it as it was; create and update call the plugin once; a replacement
// creates the new resource first (the old one is deleted at the end of the
// operation) or, with DeleteBeforeReplace, deletes the old one first.
func (d *deployment) execCustom(ctx context.Context, dr *declared, cs *customStep) (func(), error) {
	switch cs.step.Op {
	case OpSame:
		return d.same(dr, cs.rec)
	case OpCreate:
		return d.mutate(ctx, dr, cs, OpCreate, nil)
	case OpUpdate:
		return d.mutate(ctx, dr, cs, OpUpdate, dr.old)
	}
	r, old := dr.r, dr.old
	if r.Protect {
		err := fmt.Errorf("%s %s %q is protected, so it cannot be replaced (changed: %v); to allow the replacement, declare it with Protect(false) and run up again", OpReplace, r.Type, r.Name, cs.step.Replaces)
		d.stepFailed(OpReplace, r.URN, r.Type, err, time.Now())
		return d.fail(dr, err), err
	}
	if !cs.step.DeleteBeforeReplace {
		return d.mutate(ctx, dr, cs, OpCreateReplacement, old)
	}
	unprotected := *old
	unprotected.Protect = false // the program no longer protects it (checked above)
	if err := d.deleteResource(ctx, &unprotected, OpDeleteReplaced, dr.plugin); err != nil {
		err = stepError(OpDeleteReplaced, r, err, old.Inputs, old.Outputs)
		return d.fail(dr, err), err
	}
	commit, err := d.mutate(ctx, dr, cs, OpCreateReplacement, nil)
	if err != nil {
		return func() {
			d.fate[old] = nil
			commit()
		}, err
	}
	return commit, nil
}

// same records a resource whose inputs did not change.
func (d *deployment) same(dr *declared, rec *state.Resource) (func(), error) {
	old := dr.old
	rec.ID = old.ID
	rec.Outputs = secretOutputs(old.Outputs, rec.Inputs, dr.r.AdditionalSecretOutputs)
	rec.Created, rec.Modified = old.Created, old.Modified
	if d.ev.enabled() {
		d.ev.emit(Event{Type: EventStepDone, Op: OpSame, URN: rec.URN, ResourceType: rec.Type})
	}
	return d.commit(dr, OpSame, rec, nil, false), nil
}

// mutate runs one plugin call that changes the world: a create (op
// OpCreate or OpCreateReplacement) or an update. prior is the record the
// step changes or replaces (nil for a create, and for the create of a
// delete-before-replace replacement, whose old record is already gone).
// The step is journaled before the call and after it, and reported as
// events; a replacement condemns prior, to be deleted at the end.
func (d *deployment) mutate(ctx context.Context, dr *declared, cs *customStep, op Op, prior *state.Resource) (func(), error) {
	r, rec, keys := dr.r, cs.rec, cs.keys
	start := time.Now()
	d.stepStart(op, r.URN, r.Type, keys)
	if op == OpUpdate {
		rec.ID, rec.Created = prior.ID, prior.Created
	}
	failed := func(err error) (func(), error) {
		err = stepError(op, r, err, rec.Inputs, outputsOf(prior))
		d.stepFailed(op, r.URN, r.Type, err, start)
		return d.fail(dr, err), err
	}
	seq, err := d.begin(ctx, op, prior, rec)
	if err != nil {
		return failed(err)
	}
	id, outs, err := d.callPlugin(ctx, dr, op, rec)
	if err != nil {
		if jerr := d.end(ctx, seq, false, op, prior, nil); jerr != nil {
			err = fmt.Errorf("%w (and %w)", err, jerr)
		}
		return failed(err)
	}
	done := *rec
	done.ID = id
	done.Outputs = secretOutputs(outs, rec.Inputs, r.AdditionalSecretOutputs)
	now := time.Now().UTC()
	done.Modified = &now
	if op != OpUpdate {
		done.Created = &now
	}
	commit := d.commit(dr, op, &done, keys, op == OpCreateReplacement && prior != nil)
	if err := d.end(ctx, seq, true, op, prior, &done); err != nil {
		_, ferr := failed(err)
		return commit, ferr
	}
	d.stepDone(op, r.URN, r.Type, keys, start)
	return commit, nil
}

// callPlugin makes the plugin call of a create or an update and returns
// the resource's ID and outputs (during preview: predicted).
func (d *deployment) callPlugin(ctx context.Context, dr *declared, op Op, rec *state.Resource) (string, resource.PropertyMap, error) {
	r := dr.r
	if op != OpUpdate {
		resp, err := dr.plugin.Create(ctx, resource.CreateRequest{URN: r.URN, Type: r.Type, Inputs: rec.Inputs, Preview: d.dryRun})
		return resp.ID, resp.Outputs, err
	}
	old := dr.old
	resp, err := dr.plugin.Update(ctx, resource.UpdateRequest{
		URN: r.URN, Type: r.Type, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: rec.Inputs, Preview: d.dryRun,
	})
	if err != nil {
		return "", nil, explainGone(ctx, dr.plugin, old, err)
	}
	return old.ID, resp.Outputs, nil
}

// outputsOf returns the outputs of r (nil for nil).
func outputsOf(r *state.Resource) resource.PropertyMap {
	if r == nil {
		return nil
	}
	return r.Outputs
}
