package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// Explicit providers (Pulumi's): a program declares a provider resource of
// type "pulumi:providers:<pkg>" with the plugin's configuration as inputs
// (which may hold outputs), and resources of <pkg> use it with the
// Provider option. Its step is a default provider's (prepareProvider,
// recordProvider) on its declared inputs.

// explicitProvider returns the provider the registration dr declares.
func (d *deployment) explicitProvider(ctx context.Context, dr *declared) (*providerRes, error) {
	r := dr.r
	pkg := strings.TrimPrefix(r.Type, providerTypePrefix)
	version, _ := r.Inputs["version"].(string)
	if version == "" {
		version = r.Version
	}
	base, err := d.plugin(ctx, pkg, version, r.PluginDownloadURL)
	if err != nil {
		return nil, fmt.Errorf("the provider %s: %w", r.URN, err)
	}
	cp, ok := base.(resource.Configurable)
	if !ok {
		return nil, fmt.Errorf("%s: the %s plugin is built into runner and takes no configuration, so it has no explicit providers; declare its resources without the Provider option", r.URN, pkg)
	}
	p := &providerRes{pkg: pkg, urn: r.URN, old: dr.old, base: base, configurable: cp,
		decl: dr, fromRefs: map[string]bool{}, ready: make(chan struct{})}
	p.started.Store(true)
	p.id = d.providerID(p)
	return p, nil
}

// runExplicitProvider runs the step of an explicit provider: prepared
// (unless it was before any step ran), checked against the plan being
// executed, recorded like a default provider with its declaration's
// parent, dependencies and options; its outputs are its checked config.
func (d *deployment) runExplicitProvider(ctx context.Context, p *providerRes) (func(), error) {
	dr := p.decl
	if err := d.prepareProvider(ctx, p); err != nil {
		return d.fail(dr, err), err
	}
	ch := p.ch
	dr.step = Step{Op: ch.op, URN: dr.r.URN, Type: dr.r.Type, Deps: dr.deps, NewInputs: ch.checked,
		OldInputs: inputsOf(p.old), Protect: dr.r.Protect, RetainOnDelete: dr.r.RetainOnDelete}
	if err := d.planned.Check(&dr.step); err != nil {
		d.stepFailed(ch.op, dr.r.URN, dr.r.Type, err, time.Now())
		return d.fail(dr, err), err
	}
	rec := d.newRecord(dr, ch.checked)
	rec.ID, rec.Outputs = p.id, ch.checked.Copy(0)
	now := time.Now().UTC()
	rec.Created, rec.Modified = &now, &now
	if ch.op == OpSame {
		rec.Created, rec.Modified = p.old.Created, p.old.Modified
	}
	record, err := d.recordProvider(ctx, p, rec)
	if err != nil {
		return d.fail(dr, err), err
	}
	return func() {
		record()
		if d.dryRun {
			d.plan = append(d.plan, dr.step)
		}
		dr.answer = source.Answer{ID: rec.ID, IDKnown: rec.ID != resource.UnknownStringValue, Outputs: rec.Outputs, Absent: program.AbsentNull}
	}, nil
}
