package stepexec

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// RecordConfigured records the step of a configurable plugin's default
// provider, once it is prepared (decided and configured): with its checked
// config as inputs and outputs (secrets kept secret).
func (d *Executor) RecordConfigured(ctx context.Context, p *runstate.Provider) (func(), error) {
	now := time.Now().UTC()
	rec := &state.Resource{
		URN: p.URN, Custom: true, ID: p.ID, Type: runstate.ProviderTypePrefix + p.Pkg,
		Inputs: p.Change.Checked, Outputs: p.Change.Checked.Copy(0), Created: &now, Modified: &now,
	}
	if p.Change.Op == plan.OpSame {
		c := *p.Old
		rec = &c
	}
	return d.recordProvider(ctx, p, rec)
}

// ConfigureProvider gives a replaced provider its new ID and configures the
// plugin with the checked config (an unchanged provider reuses a plugin
// already configured from its record in this operation).
func (d *Executor) ConfigureProvider(ctx context.Context, p *runstate.Provider, ch runstate.ProviderChange) error {
	if ch.Op == plan.OpReplace {
		p.ID = runstate.NewUUID()
		if d.DryRun {
			p.ID = resource.UnknownStringValue
		}
	}
	configure := func(ctx context.Context) (resource.Plugin, error) {
		return p.Configurable.Configure(ctx, resource.ConfigureRequest{URN: p.URN, ID: p.ID, Inputs: ch.Checked})
	}
	var err error
	if ch.Op == plan.OpSame {
		p.Plugin, err = d.Provs.Get(ctx, p.Ref(), configure)
	} else {
		p.Plugin, err = configure(ctx)
		if err == nil {
			d.Provs.Set(p.Ref(), p.Plugin)
		}
	}
	if err != nil {
		return fmt.Errorf("configuring it: %w", err)
	}
	return nil
}

// recordProvider journals a provider's step (not an unchanged one) as the
// record rec and returns the function that records it. Its update or
// replace (a new configuration, such as the kubeconfig of a cluster made
// again) is shown as a step in preview and up alike; its create is not,
// as it comes with the project's first resources. A replaced
// provider's old record stays, condemned, until the resources that name it
// are deleted.
func (d *Executor) recordProvider(ctx context.Context, p *runstate.Provider, rec *state.Resource) (func(), error) {
	ch := p.Change
	now := time.Now().UTC()
	shown := ch.Op == plan.OpUpdate || ch.Op == plan.OpReplace // a reconfiguration
	if shown {
		d.StepStart(ch.Op, p.URN, rec.Type, nil)
	}
	var err error
	switch ch.Op {
	case plan.OpCreate:
		err = d.JournalPlain(ctx, plan.OpCreate, nil, rec)
	case plan.OpUpdate:
		rec.Created = p.Old.Created
		err = d.JournalPlain(ctx, plan.OpUpdate, p.Old, rec)
	case plan.OpReplace:
		err = d.JournalPlain(ctx, plan.OpCreateReplacement, p.Old, rec)
	}
	if err != nil {
		err = fmt.Errorf("%s provider %s: %w", ch.Op, p.URN.Name(), err)
		d.StepFailed(ch.Op, p.URN, rec.Type, err, now)
		return nil, err
	}
	if shown {
		d.StepDone(ch.Op, p.URN, rec.Type, nil, now)
	}
	return func() {
		d.News = append(d.News, rec)
		switch {
		case ch.Op == plan.OpReplace:
			c := *p.Old
			c.Delete, c.Protect = true, false
			d.Fate[p.Old] = &c
		case p.Old != nil:
			d.Fate[p.Old] = nil
		}
	}, nil
}

// RecordExplicit records the decided step (dr.Step) of an explicit
// provider, once it is prepared: like a default provider, with its
// declaration's parent, dependencies and options; its outputs are its
// checked config.
func (d *Executor) RecordExplicit(ctx context.Context, p *runstate.Provider) (func(), error) {
	dr, ch := p.Decl, p.Change
	rec := dr.NewRecord(ch.Checked)
	rec.ID, rec.Outputs = p.ID, ch.Checked.Copy(0)
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if ch.Op == plan.OpSame {
		rec.Created, rec.Modified = p.Old.Created, p.Old.Modified
	}
	record, err := d.recordProvider(ctx, p, rec)
	if err != nil {
		return d.FailStep(dr, err), err
	}
	return func() {
		record()
		if d.DryRun {
			d.Plan = append(d.Plan, dr.Step)
		}
		dr.Answer = source.Answer{ID: rec.ID, IDKnown: rec.ID != resource.UnknownStringValue, Outputs: rec.Outputs, Absent: program.AbsentNull}
	}, nil
}
