package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepexec"
)

// planRefresh reads every recorded custom resource back, in parallel.
func (d *deployment) planRefresh() []task {
	var tasks []task
	for _, r := range d.old.Resources {
		if !r.Custom || isProvider(r.Type) {
			continue
		}
		r := r
		tasks = append(tasks, task{run: func(ctx context.Context) (func(), error) { return d.runRefresh(ctx, r) }})
	}
	return tasks
}

// runRefresh reads one resource back and records its drift, or that it is
// gone.
func (d *deployment) runRefresh(ctx context.Context, old *state.Resource) (func(), error) {
	start := time.Now()
	d.stepStart(OpRefresh, old.URN, old.Type, nil)
	plugin, err := d.pluginOf(ctx, old)
	if err == nil {
		var resp resource.ReadResponse
		resp, err = d.refreshRead(ctx, plugin, old)
		if err == nil {
			return d.refreshed(old, resp, start), nil
		}
	}
	err = &redactedError{
		msg: redact(fmt.Sprintf("%s %s %q: %v", OpRefresh, old.Type, old.URN.Name(), err), old.Inputs, old.Outputs),
		err: err,
	}
	d.stepFailed(OpRefresh, old.URN, old.Type, err, start)
	return nil, err
}

// refreshed records what a Read returned.
func (d *deployment) refreshed(old *state.Resource, resp resource.ReadResponse, start time.Time) func() {
	if resp.ID == "" {
		d.ev.emit(Event{Type: EventStepDone, Op: OpRefresh, URN: old.URN, ResourceType: old.Type, Duration: time.Since(start), Message: "the resource no longer exists; it leaves the state"})
		return func() {
			d.fate[old] = nil
			d.changes[OpDelete]++
			d.steps = append(d.steps, StepSummary{Op: OpDelete, URN: old.URN, Type: old.Type})
		}
	}
	rec := *old
	rec.ID = resp.ID
	if resp.Inputs != nil {
		rec.Inputs = resp.Inputs
	}
	rec.Outputs = stepexec.KeepSecrets(old.Outputs, stepexec.SecretOutputs(resp.Outputs, rec.Inputs, rec.AdditionalSecretOutputs))
	keys := resource.DiffKeys(old.Outputs, rec.Outputs, nil)
	d.stepDone(OpRefresh, old.URN, old.Type, keys, start)
	return func() {
		d.fate[old] = &rec
		if len(keys) == 0 {
			d.changes[OpSame]++
			return
		}
		d.changes[OpUpdate]++
		d.steps = append(d.steps, StepSummary{Op: OpUpdate, URN: old.URN, Type: old.Type, Keys: keys})
	}
}
