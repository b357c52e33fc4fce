package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

// Explicit providers (Pulumi's): a program declares a provider resource of
// type "pulumi:providers:<pkg>" with the plugin's configuration as inputs
// (which may hold outputs), and resources of <pkg> use it with the
// Provider option. Its step is a default provider's (prepareProvider,
// recordProvider) on its declared inputs.

// checkProviderOptions refuses, before any step runs, a Provider option
// that does not name a provider of the resource's own package.
func checkProviderOptions(list []program.Declaration) error {
	var errs []error
	for i := range list {
		r := &list[i]
		if r.Provider < 0 {
			continue
		}
		if r.Provider >= i {
			errs = append(errs, fmt.Errorf("%s names as its provider a resource declared after it; declare the provider first", r.URN))
			continue
		}
		p := &list[r.Provider]
		switch {
		case !r.Custom:
			errs = append(errs, fmt.Errorf("%s is a component, so it takes no Provider option (it names %s); give the option to its custom resources", r.URN, p.URN))
		case isProvider(r.Type):
			errs = append(errs, fmt.Errorf("%s is a provider, so it takes no Provider option (it names %s)", r.URN, p.URN))
		case !p.Custom || !isProvider(p.Type):
			errs = append(errs, fmt.Errorf("%s names %s as its provider, which is not a provider resource: a provider's type is %s<package>", r.URN, p.URN, providerTypePrefix))
		case strings.TrimPrefix(p.Type, providerTypePrefix) != resource.Package(r.Type):
			errs = append(errs, fmt.Errorf("%s, of package %q, names %s as its provider, a provider of package %q; a resource's provider must be of its own package",
				r.URN, resource.Package(r.Type), p.URN, strings.TrimPrefix(p.Type, providerTypePrefix)))
		}
	}
	return errors.Join(errs...)
}

// explicitProvider returns the provider the declaration dr declares. early
// says its inputs refer to no resource of the program, so that it is
// configured before any step runs.
func (d *deployment) explicitProvider(dr *declared, early bool) (*providerRes, error) {
	r := dr.r
	pkg := strings.TrimPrefix(r.Type, providerTypePrefix)
	base, ok := d.plugins[pkg]
	if !ok {
		return nil, fmt.Errorf("no resource plugin serves package %q, needed for the provider %s", pkg, r.URN)
	}
	cp, ok := base.(resource.Configurable)
	if !ok {
		return nil, fmt.Errorf("%s: the %s plugin is built into runner and takes no configuration, so it has no explicit providers; declare its resources without the Provider option", r.URN, pkg)
	}
	p := &providerRes{pkg: pkg, urn: r.URN, old: dr.old, task: dr.task, base: base, configurable: cp,
		decl: dr, early: early, fromRefs: map[string]bool{}}
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
		d.decls.FinishOutputs(dr.i, rec.ID, rec.ID != resource.UnknownStringValue, rec.Outputs, program.AbsentNull)
	}, nil
}
