package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
)

// The stream: a source feeds registrations (source.Sink), each decided
// and run when it arrives, at most Options.Parallel at once, and answered
// with the resource's outputs once its step is recorded.

var _ source.Sink = (*deployment)(nil)

// Preflight checks what the source knows before its first registration:
// the plan covers the resources it declares, and the default providers of
// the packages it uses accept their configuration (configured
// concurrently; a refusal stops the operation before anything changes).
func (d *deployment) Preflight(ctx context.Context, pf source.Preflight) error {
	if pf.URNs != nil {
		if err := d.checkPlanCoverage(pf.URNs); err != nil {
			return err
		}
		d.covered = true
		d.Reserve(len(pf.URNs))
	}
	var provs []*runstate.Provider
	var errs []error
	for _, pkg := range pf.Packages {
		p, err := d.DefaultProviderFor(ctx, pkg.Name, pkg.Version, pkg.Server, pkg.Param)
		if err != nil {
			errs = append(errs, neededFor(err, pkg))
			continue
		}
		provs = append(provs, p)
	}
	for _, pkg := range pf.Explicit {
		if _, err := d.Plugin(ctx, pkg.Name, pkg.Version, pkg.Server); err != nil {
			errs = append(errs, neededFor(err, pkg))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var wg sync.WaitGroup
	errs = make([]error, len(provs))
	for i, p := range provs {
		if p.Configurable != nil {
			wg.Go(func() { errs[i] = d.prepareProvider(ctx, p) })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Register decides and runs the step of one registered resource and
// answers with its outputs.
func (d *deployment) Register(ctx context.Context, r *source.Registration) (source.Answer, error) {
	rec, err := d.Step(ctx, r)
	if rec == nil {
		return source.Answer{}, err
	}
	ans := rec.Record()
	if err != nil {
		return source.Answer{}, err
	}
	return ans, nil
}

var _ source.SerialSink = (*deployment)(nil)

// Step decides and runs the step of one registered resource and returns
// what records it (and then gives the answer), with the step's error.
// Steps run concurrently; a source that records them itself does it one at
// a time, so that the records do not contend.
func (d *deployment) Step(ctx context.Context, r *source.Registration) (source.Recorder, error) {
	dr, err := d.Admit(ctx, r)
	if err != nil {
		return nil, err
	}
	if d.sem != nil {
		select {
		case d.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, source.ErrNotAttempted
		}
	}
	dr.Commit, err = d.runStep(d.workCtx, dr)
	if d.sem != nil {
		<-d.sem
	}
	if err != nil && !errors.Is(err, source.ErrNotAttempted) {
		d.Stop(err)
	}
	return dr, err
}

// runStep runs the step of a registration: the root stack, a component,
// an explicit provider or a custom resource (after its provider).
func (d *deployment) runStep(ctx context.Context, dr *runstate.Declared) (func(), error) {
	r := dr.R
	switch {
	case r.Type == resource.RootStackType && r.Parent == "":
		return d.exec.RunRoot(ctx, dr)
	case !r.Custom:
		return d.exec.RunComponent(ctx, dr)
	case runstate.IsProvider(r.Type):
		return d.runExplicit(ctx, dr)
	}
	p, err := d.providerOf(ctx, dr)
	if err != nil {
		if errors.Is(err, source.ErrNotAttempted) {
			return d.exec.FailStep(dr, err), err
		}
		op := OpCreate
		if r.ReadID != "" {
			op = OpRead
		}
		return d.exec.FailEarly(dr, runstate.StepError(op, r, err))
	}
	d.UseProvider(dr, p)
	if r.ReadID != "" {
		return d.runRead(ctx, dr)
	}
	d.BindProvider(dr)
	return d.runCustom(ctx, dr)
}

// runExplicit runs the step of an explicit provider the program registers.
func (d *deployment) runExplicit(ctx context.Context, dr *runstate.Declared) (func(), error) {
	p, err := d.gen.ExplicitProvider(ctx, dr)
	if err != nil {
		return d.exec.FailEarly(dr, err)
	}
	d.AddExplicit(p)
	commit, err := d.runExplicitProvider(ctx, p)
	p.Err = err
	close(p.Ready)
	return commit, err
}

// providerOf returns the provider of a custom resource: the explicit one
// it names (registered earlier in this run), else its package's default
// provider.
func (d *deployment) providerOf(ctx context.Context, dr *runstate.Declared) (*runstate.Provider, error) {
	r := dr.R
	if r.Provider == "" {
		return d.defaultProvider(ctx, r)
	}
	urn := runstate.ProviderURN(r.Provider)
	p := d.Explicit(urn)
	switch {
	case p == nil:
		return nil, fmt.Errorf("its provider %s is not registered by the program; register the provider before the resources that use it", r.Provider)
	case p.Pkg != resource.Package(r.Type):
		return nil, fmt.Errorf("its provider %s is a provider of package %q, not of its own package %q", urn, p.Pkg, resource.Package(r.Type))
	}
	<-p.Ready
	if p.Err != nil {
		return nil, fmt.Errorf("%w (the provider %s failed)", source.ErrNotAttempted, urn.Name())
	}
	return p, nil
}

// RegisterOutputs records the outputs of the root stack (the stack
// outputs, recorded at the end) or of a component.
func (d *deployment) RegisterOutputs(_ context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	if outputs == nil {
		outputs = resource.PropertyMap{}
	}
	dr := d.Registered(urn)
	d.Mu.Lock()
	defer d.Mu.Unlock()
	switch {
	case dr == nil:
		return fmt.Errorf("registering the outputs of %s: the program has not registered it", urn)
	case dr.R.Type == resource.RootStackType && dr.R.Parent == "":
		d.Outputs = outputs
		return nil
	case dr.R.Custom:
		return nil // a custom resource's outputs are its plugin's
	}
	for i, rec := range d.News {
		if rec.URN == urn {
			c := *rec
			c.Outputs = outputs
			d.News[i] = &c
		}
	}
	return nil
}

// neededFor names in err what needs the package.
func neededFor(err error, pkg source.Package) error {
	if pkg.For == "" {
		return err
	}
	return fmt.Errorf("%w, needed for %s", err, pkg.For)
}

// runCustom decides a custom resource's step, checks it against the plan
// being executed (if any) and executes it.
func (d *deployment) runCustom(ctx context.Context, dr *runstate.Declared) (func(), error) {
	cs, err := d.gen.DecideCustom(ctx, dr)
	if err != nil {
		return d.exec.FailEarly(dr, err)
	}
	dr.Step = cs.Step
	if failed, err := d.checkPlanned(dr); err != nil {
		return failed, err
	}
	return d.exec.ExecCustom(ctx, dr, &cs)
}

// checkPlanned checks dr's decided step against the plan being executed
// (if any): a step the plan does not allow fails, reported, and what it
// returns is the registration's answer.
func (d *deployment) checkPlanned(dr *runstate.Declared) (func(), error) {
	if err := d.Planned.Check(&dr.Step); err != nil {
		d.StepFailed(dr.Step.Op, dr.R.URN, dr.R.Type, err, time.Now())
		return d.exec.FailStep(dr, err), err
	}
	return nil, nil
}
