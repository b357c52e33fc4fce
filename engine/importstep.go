package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepexec"
)

// decideImport decides the import of a resource declared with Import and
// not yet in the state: Read with only the ID, then Check (olds: the
// inputs read, news: the program's), then Diff, which must show no change.
// Read has no side effect, so a preview reads too.
func (d *deployment) decideImport(ctx context.Context, dr *runstate.Declared, news resource.PropertyMap, seed []byte) (customStep, error) {
	r := dr.R
	resp, err := dr.Plugin.Read(ctx, resource.ReadRequest{URN: r.URN, Type: r.Type, ID: r.ImportID})
	if err != nil {
		return customStep{}, runstate.StepError(OpImport, r, fmt.Errorf("reading the resource with ID %q: %w", r.ImportID, err))
	}
	if resp.ID == "" {
		return customStep{}, runstate.StepError(OpImport, r, fmt.Errorf("no resource with ID %q exists; check the ID given to Import", r.ImportID))
	}
	olds := resp.Inputs
	if olds == nil {
		olds = resource.PropertyMap{}
	}
	checked, err := d.check(ctx, dr, OpImport, olds, news, seed)
	if err != nil {
		return customStep{}, err
	}
	diff, err := dr.Plugin.Diff(ctx, resource.DiffRequest{
		URN: r.URN, Type: r.Type, ID: resp.ID, OldInputs: olds, OldOutputs: resp.Outputs,
		NewInputs: checked, IgnoreChanges: r.IgnoreChanges,
	})
	if err != nil {
		return customStep{}, runstate.StepError(OpImport, r, fmt.Errorf("comparing the program's inputs with the resource read: %w", err), checked, resp.Outputs)
	}
	cs := d.newCustomStep(dr, checked, seed)
	probe := customStep{rec: cs.rec}
	decideFromDiff(&probe, &state.Resource{Inputs: olds}, diff, false, false)
	if probe.step.Op != OpSame {
		return customStep{}, runstate.StepError(OpImport, r, fmt.Errorf("the program's inputs differ from the resource with ID %q in %s; change the program to match the existing resource (or drop Import to create a new one)", r.ImportID, strings.Join(probe.step.Keys, ", ")))
	}
	cs.step.Op, cs.read = OpImport, &resp
	return cs, nil
}

// execImport records an imported resource as its decision read it.
func (d *deployment) execImport(ctx context.Context, dr *runstate.Declared, cs *customStep) (func(), error) {
	r, rec := dr.R, cs.rec
	start := time.Now()
	d.StepStart(OpImport, r.URN, r.Type, nil)
	rec.ID, rec.ImportID = cs.read.ID, r.ImportID
	rec.Outputs = stepexec.SecretOutputs(cs.read.Outputs, rec.Inputs, r.AdditionalSecretOutputs)
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if err := d.journalPlain(ctx, OpImport, nil, rec); err != nil {
		err = runstate.StepError(OpImport, r, err)
		d.StepFailed(OpImport, r.URN, r.Type, err, start)
		return d.fail(dr, err), err
	}
	d.StepDone(OpImport, r.URN, r.Type, nil, start)
	return d.commit(dr, OpImport, rec, nil, false), nil
}

// refreshRead reads a recorded resource back for a refresh. A Read that
// found the resource but says it failed to initialize (resource.InitError)
// is a warning: the resource is kept, as read.
func (d *deployment) refreshRead(ctx context.Context, plugin resource.Plugin, old *state.Resource) (resource.ReadResponse, error) {
	resp, err := plugin.Read(ctx, resource.ReadRequest{URN: old.URN, Type: old.Type, ID: old.ID, Inputs: old.Inputs, Outputs: old.Outputs})
	var ie *resource.InitError
	if !errors.As(err, &ie) {
		return resp, err
	}
	d.Events.Diag(SeverityWarning, runstate.Redact(fmt.Sprintf("refresh %s %q: %v", old.Type, old.URN.Name(), err), old.Inputs, old.Outputs))
	resp = resource.ReadResponse{ID: ie.ID, Inputs: ie.Inputs, Outputs: ie.Outputs}
	if resp.ID == "" {
		resp.ID = old.ID
	}
	if resp.Outputs == nil {
		resp.Outputs = old.Outputs
	}
	return resp, nil
}
