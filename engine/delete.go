package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/resource"
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
	for _, r := range d.old.Resources {
		next, ok := d.fate[r]
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
	out := make([]doomed, len(d.old.Resources))
	for i, r := range d.old.Resources {
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
		refs := append([]resource.URN{x.res.Parent, providerURN(x.res.Provider)}, x.res.Dependencies...)
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

// providerURN returns the URN part of a provider reference "<URN>::<ID>".
func providerURN(ref string) resource.URN {
	if i := strings.LastIndex(ref, "::"); i >= 0 {
		return resource.URN(ref[:i])
	}
	return ""
}

// runDelete deletes one doomed resource.
func (d *deployment) runDelete(ctx context.Context, x doomed) (func(), error) {
	var plugin resource.Plugin
	if x.res.Custom && !isProvider(x.res.Type) {
		var err error
		if d.dryRun || x.res.RetainOnDelete {
			_, err = d.pluginFor(ctx, x.res) // no call: nothing to configure
		} else {
			plugin, err = d.pluginOf(ctx, x.res)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s %q: %w", x.op, x.res.Type, x.res.URN.Name(), err)
		}
	}
	if err := d.deleteResource(ctx, x.res, x.op, plugin); err != nil {
		return nil, &redactedError{
			msg: redact(fmt.Sprintf("%s %s %q: %v", x.op, x.res.Type, x.res.URN.Name(), err), x.res.Inputs, x.res.Outputs),
			err: err,
		}
	}
	return func() {
		d.fate[x.orig] = nil
		d.count(x.op, x.res, nil)
		if d.dryRun && !x.replaced && !isProvider(x.res.Type) {
			d.plan = append(d.plan, Step{Op: x.op, URN: x.res.URN, Type: x.res.Type, Deps: x.res.Dependencies, OldInputs: x.res.Inputs})
		}
	}, nil
}

// deleteResource deletes res through plugin (nil: a resource with no plugin
// of its own, only removed from the state). It refuses protected resources;
// with RetainOnDelete, or during preview, the plugin is not called.
func (d *deployment) deleteResource(ctx context.Context, res *state.Resource, op Op, plugin resource.Plugin) error {
	start := time.Now()
	quiet := isProvider(res.Type)
	if res.Protect {
		err := fmt.Errorf("%s is protected, so it cannot be deleted; to allow it, declare it with Protect(false), run up, then delete it", res.URN)
		d.stepFailed(op, res.URN, res.Type, err, start)
		return err
	}
	if !quiet {
		d.stepStart(op, res.URN, res.Type, nil)
	}
	if plugin != nil && !res.RetainOnDelete && !d.dryRun {
		seq, err := d.begin(ctx, op, res, nil)
		if err != nil {
			d.stepFailed(op, res.URN, res.Type, err, start)
			return err
		}
		err = stepexec.CallDelete(ctx, plugin, res)
		err = stepexec.ExplainGone(ctx, plugin, res, err)
		unknown, err := d.outcomeUnknown(err, op, res, nil)
		if !unknown { // unknown: the journal step stays open, pending
			if jerr := d.end(ctx, seq, err == nil, op, res, nil); jerr != nil && err == nil {
				err = jerr
			}
		}
		if err != nil {
			d.stepFailed(op, res.URN, res.Type, redactErr(err, res), start)
			return err
		}
	}
	if !quiet {
		d.stepDone(op, res.URN, res.Type, nil, start)
	}
	return nil
}

// redactErr returns err with the secrets of res removed from its message.
func redactErr(err error, res *state.Resource) error {
	return &redactedError{msg: redact(err.Error(), res.Inputs, res.Outputs), err: err}
}
