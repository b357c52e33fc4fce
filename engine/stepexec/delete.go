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

// Delete deletes one runstate.Doomed resource; a read (external) one only
// leaves the state, its plugin not called, and so does one deleted with a
// resource this operation deletes (runstate.DeletedWithDeleting).
func (d *Executor) Delete(ctx context.Context, x runstate.Doomed) (func(), error) {
	var plugin resource.Plugin
	if x.Res.Custom && !runstate.IsProvider(x.Res.Type) && !x.Res.External {
		var err error
		switch {
		case d.DryRun || x.Res.RetainOnDelete:
			_, err = d.PluginFor(ctx, x.Res) // no call: nothing to configure
		case d.DeletedWithDeleting(x.Res):
			plugin, err = d.PluginFor(ctx, x.Res) // journaled, not called: nothing to configure
		default:
			plugin, err = d.PluginOf(ctx, x.Res)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s %q: %w", x.Op, x.Res.Type, x.Res.URN.Name(), err)
		}
	}
	if err := d.deleteResource(ctx, x.Res, x.Op, plugin); err != nil {
		return nil, runstate.Redacted(fmt.Sprintf("%s %s %q: %v", x.Op, x.Res.Type, x.Res.URN.Name(), err), err, x.Res.Inputs, x.Res.Outputs)
	}
	return func() {
		d.Fate[x.Orig] = nil
		d.Count(x.Op, x.Res, nil)
		if d.DryRun && !x.Replaced && !runstate.IsProvider(x.Res.Type) {
			d.Plan = append(d.Plan, plan.Step{Op: x.Op, URN: x.Res.URN, Type: x.Res.Type, Deps: x.Res.Dependencies, OldInputs: x.Res.Inputs})
		}
	}, nil
}

// deleteResource deletes res through plugin (nil: a resource with no plugin
// of its own, only removed from the state). It refuses protected resources;
// with RetainOnDelete, deleted with a resource this operation deletes, or
// during preview, the plugin is not called.
func (d *Executor) deleteResource(ctx context.Context, res *state.Resource, op plan.Op, plugin resource.Plugin) error {
	start := time.Now()
	quiet := runstate.IsProvider(res.Type)
	if res.Protect {
		err := fmt.Errorf("%s is protected, so it cannot be deleted; to allow it, set its protect option to false in the program (Protect(false) in Go), run up, then delete it", res.URN)
		d.StepFailed(op, res.URN, res.Type, err, start)
		return err
	}
	if !quiet {
		d.StepStart(op, res.URN, res.Type, nil)
	}
	if plugin != nil && !res.RetainOnDelete && !d.DryRun {
		seq, err := d.begin(ctx, op, res, nil)
		if err != nil {
			d.StepFailed(op, res.URN, res.Type, err, start)
			return err
		}
		// Deleted with a resource this operation deletes, it is journaled
		// as deleted (a crash folds it so) and the plugin is not called.
		if !d.DeletedWithDeleting(res) {
			err = CallDelete(ctx, plugin, res)
			err = ExplainGone(ctx, plugin, res, err)
		}
		unknown, err := d.OutcomeUnknown(err, op, res, nil)
		if !unknown { // unknown: the journal step stays open, pending
			if jerr := d.end(ctx, seq, err == nil, op, res, nil); jerr != nil && err == nil {
				err = jerr
			}
		}
		if err != nil {
			d.StepFailed(op, res.URN, res.Type, runstate.RedactErr(err, res), start)
			return err
		}
	}
	if !quiet {
		d.StepDone(op, res.URN, res.Type, nil, start)
	}
	return nil
}

// deleteDependents deletes, in order, the dependents replaced along with a
// delete-before-replace replacement, and returns those it deleted. It
// refuses, before deleting any, when one is protected.
func (d *Executor) deleteDependents(ctx context.Context, dr *runstate.Declared, list []*state.Resource) ([]*state.Resource, error) {
	for _, old := range list {
		if old.Protect {
			return nil, fmt.Errorf("%s %q depends on it and would have to be replaced with it (it is replaced delete-before-replace), but it is protected; to allow the replacement, set its protect option to false in the program (Protect(false) in Go) and run up again", old.Type, old.URN.Name())
		}
	}
	var deleted []*state.Resource
	for _, old := range list {
		plugin, err := d.PluginOf(ctx, old) // the provider its record names
		if err == nil {
			err = d.deleteResource(ctx, old, plan.OpDeleteReplaced, plugin)
		}
		if err != nil {
			return deleted, runstate.RedactErr(fmt.Errorf("deleting %s %q, which depends on it, first: %w", old.Type, old.URN.Name(), err), old)
		}
		deleted = append(deleted, old)
	}
	return deleted, nil
}
