package stepexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// ExecCustom executes the decided step of a custom resource: same records
// it as it was; create and update call the plugin once; import records
// what its decision read; a replacement creates the new resource first
// (the old one is deleted at the end of the operation) or, with
// DeleteBeforeReplace, deletes the old one (and the dependents replaced
// along with it) first.
func (d *Executor) ExecCustom(ctx context.Context, dr *runstate.Declared, cs *runstate.CustomStep) (func(), error) {
	switch cs.Step.Op {
	case plan.OpSame:
		return d.same(dr, cs.Rec)
	case plan.OpCreate:
		return d.mutate(ctx, dr, cs, plan.OpCreate, nil)
	case plan.OpUpdate:
		return d.mutate(ctx, dr, cs, plan.OpUpdate, dr.Old)
	case plan.OpImport:
		return d.execImport(ctx, dr, cs)
	}
	r, old := dr.R, dr.Old
	if r.Protect && !old.External { // taking over a read resource replaces nothing
		err := fmt.Errorf("%s %s %q is protected, so it cannot be replaced (changed: %v); to allow the replacement, set its protect option to false in the program (Protect(false) in Go) and run up again", plan.OpReplace, r.Type, r.Name, cs.Step.Replaces)
		d.StepFailed(plan.OpReplace, r.URN, r.Type, err, time.Now())
		return d.FailStep(dr, err), err
	}
	switch {
	case !cs.Step.DeleteBeforeReplace:
		return d.mutate(ctx, dr, cs, plan.OpCreateReplacement, old)
	case d.ReplacedAlong(r.URN):
		// The replacement this one depends on deleted the old record.
		return d.mutate(ctx, dr, cs, plan.OpCreateReplacement, nil)
	}
	return d.deleteThenCreate(ctx, dr, cs)
}

// deleteThenCreate executes a delete-before-replace replacement: the
// dependents replaced along with it are deleted (dependents first), then
// the old resource, then the new one is created. Whatever was deleted
// leaves the state, even when a later part fails.
func (d *Executor) deleteThenCreate(ctx context.Context, dr *runstate.Declared, cs *runstate.CustomStep) (func(), error) {
	r, old := dr.R, dr.Old
	d.MarkDeleting(r.URN)
	for _, x := range cs.Dependents {
		d.MarkDeleting(x.URN)
	}
	deleted, err := d.deleteDependents(ctx, dr, cs.Dependents)
	gone := func(commit func()) func() {
		return func() {
			for _, x := range deleted {
				d.Fate[x] = nil
			}
			commit()
		}
	}
	if err != nil {
		err = runstate.StepError(plan.OpDeleteReplaced, r, err, old.Inputs, old.Outputs)
		d.StepFailed(plan.OpReplace, r.URN, r.Type, err, time.Now())
		return gone(d.FailStep(dr, err)), err
	}
	unprotected := *old
	unprotected.Protect = false // the program no longer protects it (checked before)
	if err := d.deleteResource(ctx, &unprotected, plan.OpDeleteReplaced, dr.Plugin); err != nil {
		err = runstate.StepError(plan.OpDeleteReplaced, r, err, old.Inputs, old.Outputs)
		return gone(d.FailStep(dr, err)), err
	}
	deleted = append(deleted, old)
	commit, err := d.mutate(ctx, dr, cs, plan.OpCreateReplacement, nil)
	return gone(commit), err
}

// same records a resource whose inputs did not change.
func (d *Executor) same(dr *runstate.Declared, rec *state.Resource) (func(), error) {
	old := dr.Old
	rec.ID = old.ID
	rec.Outputs = resource.SecretOutputs(old.Outputs, rec.Inputs, dr.R.AdditionalSecretOutputs)
	rec.Created, rec.Modified = old.Created, old.Modified
	rec.ImportID = old.ImportID
	if d.Events.Enabled() {
		d.Events.Emit(runstate.Event{Type: runstate.EventStepDone, Op: plan.OpSame, URN: rec.URN, ResourceType: rec.Type})
	}
	return d.commit(dr, plan.OpSame, rec, nil, false), nil
}

// mutate runs one plugin call that changes the world: a create (op
// plan.OpCreate or plan.OpCreateReplacement) or an update. prior is the record the
// step changes or replaces (nil for a create, and for the create of a
// delete-before-replace replacement, whose old record is already gone).
// The step is journaled before the call and after it, and reported as
// events; a replacement condemns prior, to be deleted at the end. A call
// that made the resource but failed to initialize it (resource.InitError)
// records the resource with its init errors and fails the step.
func (d *Executor) mutate(ctx context.Context, dr *runstate.Declared, cs *runstate.CustomStep, op plan.Op, prior *state.Resource) (func(), error) {
	r, rec, keys := dr.R, cs.Rec, cs.Keys
	start := time.Now()
	d.StepStart(op, r.URN, r.Type, keys)
	if op == plan.OpUpdate {
		rec.ID, rec.Created, rec.ImportID = prior.ID, prior.Created, prior.ImportID
	}
	failed := func(err error) (func(), error) {
		err = runstate.StepError(op, r, err, rec.Inputs, outputsOf(prior))
		d.StepFailed(op, r.URN, r.Type, err, start)
		return d.FailStep(dr, err), err
	}
	seq, err := d.begin(ctx, op, prior, rec)
	if err != nil {
		return failed(err)
	}
	res, err := d.callPlugin(ctx, dr, op, rec)
	if err != nil && res.initErrors == nil {
		if unknown, err := d.OutcomeUnknown(err, op, prior, rec); unknown {
			return failed(err) // the journal step stays open: pending
		}
		if jerr := d.end(ctx, seq, false, op, prior, nil); jerr != nil {
			err = fmt.Errorf("%w (and %w)", err, jerr)
		}
		return failed(err)
	}
	done := *rec
	done.ID, done.InitErrors = res.id, res.initErrors
	if res.inputs != nil {
		done.Inputs = res.inputs
	}
	done.Outputs = resource.SecretOutputs(res.outputs, done.Inputs, r.AdditionalSecretOutputs)
	now := time.Now().UTC()
	done.Modified = &now
	if op != plan.OpUpdate {
		done.Created = &now
	}
	commit := d.commit(dr, op, &done, keys, op == plan.OpCreateReplacement && prior != nil)
	if jerr := d.end(ctx, seq, true, op, prior, &done); jerr != nil {
		_, ferr := failed(jerr)
		return commit, ferr
	}
	if err != nil { // partial success: recorded, and the step fails
		_, ferr := failed(fmt.Errorf("%w; it is recorded with these init errors and the next up retries it with an update", err))
		return func() {
			commit()
			dr.Err = ferr
		}, ferr
	}
	d.StepDone(op, r.URN, r.Type, keys, start)
	return commit, nil
}

// callResult is what a create or update made: the resource's ID and
// outputs, the inputs to record when the plugin says (nil: the sent ones),
// and the reasons its initialization failed (nil: it did not).
type callResult struct {
	id         string
	inputs     resource.PropertyMap
	outputs    resource.PropertyMap
	initErrors []string
}

// callPlugin makes the plugin call of a create or an update (during
// preview: predicted), bounded by the resource's custom timeouts. A
// resource.InitError with an ID fills the result and is returned too.
func (d *Executor) callPlugin(ctx context.Context, dr *runstate.Declared, op plan.Op, rec *state.Resource) (callResult, error) {
	r := dr.R
	if !d.DryRun && resource.ContainsComputed(rec.Inputs) {
		// Sent to a plugin, an unknown would be dropped from the inputs
		// and the resource made without it.
		return callResult{}, fmt.Errorf("its inputs still hold values that are not known (%s) after their resources were made; the plugin's Check returned unknown values in a real run", strings.Join(unknownKeys(rec.Inputs), ", "))
	}
	if op != plan.OpUpdate {
		limit := rec.CustomTimeouts.Create
		cctx, cancel := WithTimeout(ctx, limit)
		defer cancel()
		resp, err := dr.Plugin.Create(cctx, resource.CreateRequest{URN: r.URN, Type: r.Type, Inputs: rec.Inputs, Preview: d.DryRun, Timeout: limit})
		err = TimedOut(cctx, err, "create", r.Name, limit)
		if err != nil {
			return initFailure(err, "")
		}
		return callResult{id: resp.ID, outputs: resp.Outputs}, nil
	}
	old := dr.Old
	limit := rec.CustomTimeouts.Update
	cctx, cancel := WithTimeout(ctx, limit)
	defer cancel()
	resp, err := dr.Plugin.Update(cctx, resource.UpdateRequest{
		URN: r.URN, Type: r.Type, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: rec.Inputs, Preview: d.DryRun, Timeout: limit, IgnoreChanges: r.IgnoreChanges,
	})
	err = TimedOut(cctx, err, "update", r.Name, limit)
	if err != nil {
		if res, ierr := initFailure(err, old.ID); res.initErrors != nil {
			return res, ierr
		}
		return callResult{}, ExplainGone(ctx, dr.Plugin, old, err)
	}
	return callResult{id: old.ID, outputs: resp.Outputs}, nil
}

// initFailure reads a resource.InitError out of err: the resource exists
// (with its ID, or id when the error has none) but failed to initialize.
func initFailure(err error, id string) (callResult, error) {
	var ie *resource.InitError
	if !errors.As(err, &ie) {
		return callResult{}, err
	}
	if ie.ID != "" {
		id = ie.ID
	}
	if id == "" {
		return callResult{}, fmt.Errorf("%w (the plugin gave no ID, so the resource cannot be recorded)", err)
	}
	reasons := ie.Reasons
	if len(reasons) == 0 {
		reasons = []string{"the plugin gave no reason"}
	}
	return callResult{id: id, inputs: ie.Inputs, outputs: ie.Outputs, initErrors: reasons}, err
}

// unknownKeys returns the top-level keys of m whose values hold unknowns.
func unknownKeys(m resource.PropertyMap) []string {
	var keys []string
	for _, k := range m.SortedKeys() {
		if resource.ContainsComputed(m[k]) {
			keys = append(keys, k)
		}
	}
	return keys
}

// execImport records an imported resource as its decision read it.
func (d *Executor) execImport(ctx context.Context, dr *runstate.Declared, cs *runstate.CustomStep) (func(), error) {
	r, rec := dr.R, cs.Rec
	start := time.Now()
	d.StepStart(plan.OpImport, r.URN, r.Type, nil)
	rec.ID, rec.ImportID = cs.Read.ID, r.ImportID
	rec.Outputs = resource.SecretOutputs(cs.Read.Outputs, rec.Inputs, r.AdditionalSecretOutputs)
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if err := d.JournalPlain(ctx, plan.OpImport, dr.Old, rec); err != nil { // dr.Old: a read resource it takes over
		err = runstate.StepError(plan.OpImport, r, err)
		d.StepFailed(plan.OpImport, r.URN, r.Type, err, start)
		return d.FailStep(dr, err), err
	}
	d.StepDone(plan.OpImport, r.URN, r.Type, nil, start)
	return d.commit(dr, plan.OpImport, rec, nil, false), nil
}

// FailEarly reports a step that failed before its operation started.
func (d *Executor) FailEarly(dr *runstate.Declared, err error) (func(), error) {
	op := plan.OpCreate
	switch {
	case dr.R.ReadID != "":
		op = plan.OpRead
	case dr.Old != nil:
		op = plan.OpUpdate
	case dr.R.ImportID != "":
		op = plan.OpImport
	}
	d.StepFailed(op, dr.R.URN, dr.R.Type, err, time.Now())
	return d.FailStep(dr, err), err
}

// outputsOf returns the outputs of r (nil for nil).
func outputsOf(r *state.Resource) resource.PropertyMap {
	if r == nil {
		return nil
	}
	return r.Outputs
}
