package stepexec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// Refresh reads one resource back and records its drift, or that it is
// gone.
func (d *Executor) Refresh(ctx context.Context, old *state.Resource) (func(), error) {
	start := time.Now()
	d.StepStart(plan.OpRefresh, old.URN, old.Type, nil)
	plugin, err := d.PluginOf(ctx, old)
	if err == nil {
		var resp resource.ReadResponse
		resp, err = d.refreshRead(ctx, plugin, old)
		if err == nil {
			return d.refreshed(old, resp, start), nil
		}
	}
	err = runstate.Redacted(fmt.Sprintf("%s %s %q: %v", plan.OpRefresh, old.Type, old.URN.Name(), err), err, old.Inputs, old.Outputs)
	d.StepFailed(plan.OpRefresh, old.URN, old.Type, err, start)
	return nil, err
}

// refreshed records what a Read returned.
func (d *Executor) refreshed(old *state.Resource, resp resource.ReadResponse, start time.Time) func() {
	if resp.ID == "" {
		d.Events.Emit(runstate.Event{Type: runstate.EventStepDone, Op: plan.OpRefresh, URN: old.URN, ResourceType: old.Type, Duration: time.Since(start), Message: "the resource no longer exists; it leaves the state"})
		return func() {
			d.Fate[old] = nil
			d.Changes[plan.OpDelete]++
			d.Steps = append(d.Steps, runstate.StepSummary{Op: plan.OpDelete, URN: old.URN, Type: old.Type})
		}
	}
	rec := *old
	rec.ID = resp.ID
	if resp.Inputs != nil {
		rec.Inputs = resp.Inputs
	}
	rec.Outputs = resource.KeepSecrets(old.Outputs, resource.SecretOutputs(resp.Outputs, rec.Inputs, rec.AdditionalSecretOutputs))
	keys := resource.DiffKeys(old.Outputs, rec.Outputs, nil)
	d.StepDone(plan.OpRefresh, old.URN, old.Type, keys, start)
	return func() {
		d.Fate[old] = &rec
		if len(keys) == 0 {
			d.Changes[plan.OpSame]++
			return
		}
		d.Changes[plan.OpUpdate]++
		d.Steps = append(d.Steps, runstate.StepSummary{Op: plan.OpUpdate, URN: old.URN, Type: old.Type, Keys: keys})
	}
}

// refreshRead reads a recorded resource back for a refresh. A Read that
// found the resource but says it failed to initialize (resource.InitError)
// is a warning: the resource is kept, as read.
func (d *Executor) refreshRead(ctx context.Context, plugin resource.Plugin, old *state.Resource) (resource.ReadResponse, error) {
	resp, err := plugin.Read(ctx, resource.ReadRequest{URN: old.URN, Type: old.Type, ID: old.ID, Inputs: old.Inputs, Outputs: old.Outputs})
	var ie *resource.InitError
	if !errors.As(err, &ie) {
		return resp, err
	}
	d.Events.Diag(runstate.SeverityWarning, runstate.Redact(fmt.Sprintf("refresh %s %q: %v", old.Type, old.URN.Name(), err), old.Inputs, old.Outputs))
	resp = resource.ReadResponse{ID: ie.ID, Inputs: ie.Inputs, Outputs: ie.Outputs}
	if resp.ID == "" {
		resp.ID = old.ID
	}
	if resp.Outputs == nil {
		resp.Outputs = old.Outputs
	}
	return resp, nil
}
