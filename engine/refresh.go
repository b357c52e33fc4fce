package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepexec"
)

// planRefresh reads every recorded custom resource back, in parallel.
func (d *deployment) planRefresh() []task {
	var tasks []task
	for _, r := range d.Old.Resources {
		if !r.Custom || runstate.IsProvider(r.Type) {
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
	d.StepStart(OpRefresh, old.URN, old.Type, nil)
	plugin, err := d.PluginOf(ctx, old)
	if err == nil {
		var resp resource.ReadResponse
		resp, err = d.refreshRead(ctx, plugin, old)
		if err == nil {
			return d.refreshed(old, resp, start), nil
		}
	}
	err = runstate.Redacted(fmt.Sprintf("%s %s %q: %v", OpRefresh, old.Type, old.URN.Name(), err), err, old.Inputs, old.Outputs)
	d.StepFailed(OpRefresh, old.URN, old.Type, err, start)
	return nil, err
}

// refreshed records what a Read returned.
func (d *deployment) refreshed(old *state.Resource, resp resource.ReadResponse, start time.Time) func() {
	if resp.ID == "" {
		d.Events.Emit(Event{Type: EventStepDone, Op: OpRefresh, URN: old.URN, ResourceType: old.Type, Duration: time.Since(start), Message: "the resource no longer exists; it leaves the state"})
		return func() {
			d.Fate[old] = nil
			d.Changes[OpDelete]++
			d.Steps = append(d.Steps, StepSummary{Op: OpDelete, URN: old.URN, Type: old.Type})
		}
	}
	rec := *old
	rec.ID = resp.ID
	if resp.Inputs != nil {
		rec.Inputs = resp.Inputs
	}
	rec.Outputs = stepexec.KeepSecrets(old.Outputs, stepexec.SecretOutputs(resp.Outputs, rec.Inputs, rec.AdditionalSecretOutputs))
	keys := resource.DiffKeys(old.Outputs, rec.Outputs, nil)
	d.StepDone(OpRefresh, old.URN, old.Type, keys, start)
	return func() {
		d.Fate[old] = &rec
		if len(keys) == 0 {
			d.Changes[OpSame]++
			return
		}
		d.Changes[OpUpdate]++
		d.Steps = append(d.Steps, StepSummary{Op: OpUpdate, URN: old.URN, Type: old.Type, Keys: keys})
	}
}
