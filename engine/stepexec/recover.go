package stepexec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// reportPending emits one event per pending operation.
func (d *Executor) reportPending() {
	for _, p := range d.Old.PendingOperations {
		if p.Resource == nil {
			continue
		}
		msg := fmt.Sprintf("an earlier operation was interrupted while %s %s; %s", p.Type, p.Resource.URN, whatHappens(p.Type))
		if h := d.InProgress; h != nil {
			msg = fmt.Sprintf("another run is in progress: %s holds the lock of stack %s of project %s and is %s %s now; this preview reads it back through its plugin as it is",
				h.Describe(), d.Stack, d.Project, p.Type, p.Resource.URN)
		}
		d.Events.Emit(runstate.Event{
			Type: runstate.EventPendingOperation, Severity: runstate.SeverityWarning, URN: p.Resource.URN, ResourceType: p.Resource.Type,
			Message: msg,
		})
	}
}

// whatHappens says what the recovery of a pending operation of kind op
// does.
func whatHappens(op state.OperationType) string {
	if op == state.OperationReading {
		return "nothing changed: the program reads it again"
	}
	if op == state.OperationCreating {
		return "it is read back through its plugin now: adopted into the state if it exists, created again if it does not (one that its plugin cannot look up without the ID it never returned is listed, to be checked by hand)"
	}
	return "it is read back through its plugin now and recorded as it is"
}

// RecoverPending resolves the operations an interrupted run left pending,
// reading each resource back through its plugin, and clears them from the
// snapshot in memory (a preview resolves them the same way, so that it
// plans against what up will find, and writes nothing). A create whose resource cannot be found without its ID stops
// the operation with instructions.
func (d *Executor) RecoverPending(ctx context.Context) error {
	pending := d.Old.PendingOperations
	if len(pending) == 0 {
		return nil
	}
	d.reportPending()
	snap := *d.Old
	snap.Resources = append([]*state.Resource(nil), d.Old.Resources...)
	snap.PendingOperations = nil
	var errs []error
	var unfound []*state.Resource
	for _, p := range pending {
		if p.Resource == nil {
			continue
		}
		res, err := d.resolvePending(ctx, p, snap.Resources)
		switch {
		case errors.Is(err, resource.ErrNotRecognizable):
			unfound = append(unfound, p.Resource)
		case err != nil:
			errs = append(errs, err)
		default:
			snap.Resources = res
		}
	}
	switch {
	case len(unfound) > 0 && d.InProgress != nil:
		// The run in progress has their IDs, or will: nothing to do by hand.
		d.Events.Diag(runstate.SeverityInfo, fmt.Sprintf("%d create(s) in progress cannot be looked up before the run making them records their IDs; this preview plans them as not created:%s",
			len(unfound), describeAll(unfound)))
	case len(unfound) > 0:
		errs = append(errs, unfoundError(unfound))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	d.SetOld(&snap)
	return nil
}

// resolvePending resolves one pending operation against the resources list
// and returns the new list.
func (d *Executor) resolvePending(ctx context.Context, p state.PendingOperation, list []*state.Resource) ([]*state.Resource, error) {
	r := p.Resource
	if p.Type == state.OperationReading || !r.Custom || runstate.IsProvider(r.Type) {
		return list, nil
	}
	plugin, err := d.PluginOf(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("resolving the interrupted %s of %s: %w", p.Type, r.URN, err)
	}
	id := r.ID
	if p.Type == state.OperationCreating {
		id = ""
	}
	resp, err := plugin.Read(ctx, resource.ReadRequest{URN: r.URN, Type: r.Type, ID: id, Inputs: r.Inputs, Outputs: r.Outputs})
	switch {
	case errors.Is(err, resource.ErrNotRecognizable):
		return nil, err
	case err != nil:
		return nil, runstate.RedactErr(fmt.Errorf("resolving the interrupted %s of %s: reading it back: %w", p.Type, r.URN, err), r)
	}
	if p.Type == state.OperationCreating {
		return d.adoptCreated(r, resp, list), nil
	}
	return d.refreshPending(r, resp, list), nil
}

// unfoundError lists, once, the interrupted creates whose plugins cannot
// look them up without the IDs they never returned, and says what to do.
func unfoundError(list []*state.Resource) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d interrupted create(s) cannot be looked up, since their plugin needs the ID it never returned:%s", len(list), describeAll(list))
	b.WriteString("\ncheck whether each exists and delete those that do by hand, then run `runner stack repair` (it clears every such operation of the stack); the next up creates them again")
	return fmt.Errorf("%s: %w", b.String(), resource.ErrNotRecognizable)
}

// describeAll lists resources, one a line.
func describeAll(list []*state.Resource) string {
	var b strings.Builder
	for _, r := range list {
		b.WriteString("\n  - " + r.Describe())
	}
	return b.String()
}

// outcome reports what reading back a pending operation found: said of an
// interrupted run (interrupted, at severity), or of a run in progress
// beside this preview (inProgress, for information: the preview only
// plans on it).
func (d *Executor) outcome(severity, interrupted, inProgress string) {
	if d.InProgress != nil {
		severity, interrupted = runstate.SeverityInfo, inProgress
	}
	d.Events.Diag(severity, interrupted)
}

// adoptCreated adds a resource whose interrupted create did happen to the
// list (a live record of the same URN becomes condemned: it was being
// replaced). A resource that does not exist is simply dropped.
func (d *Executor) adoptCreated(r *state.Resource, resp resource.ReadResponse, list []*state.Resource) []*state.Resource {
	if resp.ID == "" {
		d.outcome(runstate.SeverityInfo, fmt.Sprintf("the interrupted create of %s did not happen; it will be created again", r.URN),
			fmt.Sprintf("the create of %s in progress has not made it yet; this preview plans it as not created", r.URN))
		return list
	}
	rec := *r
	rec.ID = resp.ID
	rec.Delete = false
	if resp.Inputs != nil {
		rec.Inputs = resp.Inputs
	}
	rec.Outputs = resource.SecretOutputs(resp.Outputs, rec.Inputs, rec.AdditionalSecretOutputs)
	out := make([]*state.Resource, 0, len(list)+1)
	for _, x := range list {
		if x.URN == r.URN && !x.Delete {
			c := *x
			c.Delete = true
			x = &c
		}
		out = append(out, x)
	}
	d.outcome(runstate.SeverityWarning, fmt.Sprintf("the interrupted create of %s did happen; the resource is adopted into the state", r.URN),
		fmt.Sprintf("the create of %s in progress has made it; this preview plans with it as it is", r.URN))
	return append(out, &rec)
}

// refreshPending records what a resource whose update or delete was
// interrupted looks like now.
func (d *Executor) refreshPending(r *state.Resource, resp resource.ReadResponse, list []*state.Resource) []*state.Resource {
	out := make([]*state.Resource, 0, len(list))
	for _, x := range list {
		if x.URN != r.URN || x.ID != r.ID || x.Delete != r.Delete {
			out = append(out, x)
			continue
		}
		if resp.ID == "" {
			d.outcome(runstate.SeverityWarning, fmt.Sprintf("%s is gone after an interrupted operation; it leaves the state", r.URN),
				fmt.Sprintf("%s is gone while the run in progress changes it; this preview plans without it", r.URN))
			continue
		}
		c := *x
		c.ID = resp.ID
		if resp.Inputs != nil {
			c.Inputs = resp.Inputs
		}
		c.Outputs = resource.KeepSecrets(x.Outputs, resource.SecretOutputs(resp.Outputs, c.Inputs, c.AdditionalSecretOutputs))
		out = append(out, &c)
	}
	return out
}
