package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepexec"
)

// doomed is a recorded resource to delete: orig is its record in the old
// snapshot (the key of its fate), res the record to delete.
type doomed struct {
	orig *state.Resource
	res  *state.Resource
	op   Op
	// replaced: the old half of a replacement this operation made (its
	// step is the replacement's, not a delete of its own)
	replaced bool
}

// condemnedAfterUp lists what an up deletes once every declared resource is
// done: replaced resources, resources condemned by an earlier run, and
// resources the program no longer declares.
func (d *deployment) condemnedAfterUp(declared map[resource.URN]bool) []doomed {
	var out []doomed
	for _, r := range d.Old.Resources {
		next, ok := d.Fate[r]
		switch {
		case ok && next != nil && next.Delete:
			out = append(out, doomed{orig: r, res: next, op: OpDeleteReplaced, replaced: true})
		case ok:
		case r.Delete:
			out = append(out, doomed{orig: r, res: r, op: OpDeleteReplaced})
		case !declared[r.URN]:
			out = append(out, doomed{orig: r, res: r, op: OpDelete})
		}
	}
	return out
}

// condemnedAll lists every recorded resource (destroy).
func (d *deployment) condemnedAll() []doomed {
	out := make([]doomed, len(d.Old.Resources))
	for i, r := range d.Old.Resources {
		op := OpDelete
		if r.Delete {
			op = OpDeleteReplaced
		}
		out[i] = doomed{orig: r, res: r, op: op}
	}
	return out
}

// refuseProtected fails, before anything is deleted, when a doomed resource
// is protected; the error names every such resource.
func refuseProtected(list []doomed) error {
	var names []string
	for _, x := range list {
		if x.res.Protect {
			names = append(names, fmt.Sprintf("%s %q", x.res.Type, x.res.URN.Name()))
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("refusing to delete protected resources (%s); to allow it, declare each with Protect(false), run up, then retry", strings.Join(names, ", "))
}

// planDeletes orders deletes in reverse dependency order: a resource is
// deleted after every doomed resource that depends on it (through its
// dependencies, its parent or its provider). Independent deletes run in
// parallel.
func (d *deployment) planDeletes(list []doomed) []task {
	byURN := make(map[resource.URN][]int, len(list))
	for i, x := range list {
		byURN[x.res.URN] = append(byURN[x.res.URN], i)
	}
	tasks := make([]task, len(list))
	for i, x := range list {
		i, x := i, x
		tasks[i].run = func(ctx context.Context) (func(), error) { return d.runDelete(ctx, x) }
	}
	for i, x := range list {
		refs := append([]resource.URN{x.res.Parent, runstate.ProviderURN(x.res.Provider)}, x.res.Dependencies...)
		for _, u := range refs {
			for _, j := range byURN[u] {
				if j != i {
					tasks[j].deps = append(tasks[j].deps, i)
				}
			}
		}
	}
	return tasks
}

// runDelete deletes one doomed resource.
func (d *deployment) runDelete(ctx context.Context, x doomed) (func(), error) {
	var plugin resource.Plugin
	if x.res.Custom && !runstate.IsProvider(x.res.Type) {
		var err error
		if d.DryRun || x.res.RetainOnDelete {
			_, err = d.PluginFor(ctx, x.res) // no call: nothing to configure
		} else {
			plugin, err = d.PluginOf(ctx, x.res)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s %q: %w", x.op, x.res.Type, x.res.URN.Name(), err)
		}
	}
	if err := d.deleteResource(ctx, x.res, x.op, plugin); err != nil {
		return nil, runstate.Redacted(fmt.Sprintf("%s %s %q: %v", x.op, x.res.Type, x.res.URN.Name(), err), err, x.res.Inputs, x.res.Outputs)
	}
	return func() {
		d.Fate[x.orig] = nil
		d.Count(x.op, x.res, nil)
		if d.DryRun && !x.replaced && !runstate.IsProvider(x.res.Type) {
			d.Plan = append(d.Plan, Step{Op: x.op, URN: x.res.URN, Type: x.res.Type, Deps: x.res.Dependencies, OldInputs: x.res.Inputs})
		}
	}, nil
}

// deleteResource deletes res through plugin (nil: a resource with no plugin
// of its own, only removed from the state). It refuses protected resources;
// with RetainOnDelete, or during preview, the plugin is not called.
func (d *deployment) deleteResource(ctx context.Context, res *state.Resource, op Op, plugin resource.Plugin) error {
	start := time.Now()
	quiet := runstate.IsProvider(res.Type)
	if res.Protect {
		err := fmt.Errorf("%s is protected, so it cannot be deleted; to allow it, declare it with Protect(false), run up, then delete it", res.URN)
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
		err = stepexec.CallDelete(ctx, plugin, res)
		err = stepexec.ExplainGone(ctx, plugin, res, err)
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
