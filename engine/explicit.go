package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
)

// Explicit providers (Pulumi's): a program declares a provider resource of
// type "pulumi:providers:<pkg>" with the plugin's configuration as inputs
// (which may hold outputs), and resources of <pkg> use it with the
// Provider option. Its step is a default provider's (prepareProvider,
// recordProvider) on its declared inputs.

// explicitProvider returns the provider the registration dr declares.
func (d *deployment) explicitProvider(ctx context.Context, dr *runstate.Declared) (*runstate.Provider, error) {
	r := dr.R
	pkg := strings.TrimPrefix(r.Type, runstate.ProviderTypePrefix)
	version, _ := r.Inputs["version"].(string)
	if version == "" {
		version = r.Version
	}
	base, err := d.Plugin(ctx, pkg, version, r.PluginDownloadURL)
	if err != nil {
		return nil, fmt.Errorf("the provider %s: %w", r.URN, err)
	}
	cp, ok := base.(resource.Configurable)
	if !ok {
		return nil, fmt.Errorf("%s: the %s plugin is built into runner and takes no configuration, so it has no explicit providers; declare its resources without the Provider option", r.URN, pkg)
	}
	p := d.NewExplicitProvider(dr, pkg, base, cp)
	return p, nil
}

// runExplicitProvider runs the step of an explicit provider: prepared
// (unless it was before any step ran), checked against the plan being
// executed, recorded like a default provider with its declaration's
// parent, dependencies and options; its outputs are its checked config.
func (d *deployment) runExplicitProvider(ctx context.Context, p *runstate.Provider) (func(), error) {
	dr := p.Decl
	if err := d.prepareProvider(ctx, p); err != nil {
		return d.fail(dr, err), err
	}
	ch := p.Change
	dr.Step = Step{Op: ch.Op, URN: dr.R.URN, Type: dr.R.Type, Deps: dr.Deps, NewInputs: ch.Checked,
		OldInputs: inputsOf(p.Old), Protect: dr.R.Protect, RetainOnDelete: dr.R.RetainOnDelete}
	if err := d.Planned.Check(&dr.Step); err != nil {
		d.StepFailed(ch.Op, dr.R.URN, dr.R.Type, err, time.Now())
		return d.fail(dr, err), err
	}
	rec := d.newRecord(dr, ch.Checked)
	rec.ID, rec.Outputs = p.ID, ch.Checked.Copy(0)
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if ch.Op == OpSame {
		rec.Created, rec.Modified = p.Old.Created, p.Old.Modified
	}
	record, err := d.recordProvider(ctx, p, rec)
	if err != nil {
		return d.fail(dr, err), err
	}
	return func() {
		record()
		if d.DryRun {
			d.Plan = append(d.Plan, dr.Step)
		}
		dr.Answer = source.Answer{ID: rec.ID, IDKnown: rec.ID != resource.UnknownStringValue, Outputs: rec.Outputs, Absent: program.AbsentNull}
	}, nil
}
