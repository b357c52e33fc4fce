package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
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
		d.reserve(len(pf.URNs))
	}
	var provs []*providerRes
	var errs []error
	for _, pkg := range pf.Packages {
		p, err := d.defaultProviderFor(ctx, pkg.Name, pkg.Version, pkg.Server)
		if err != nil {
			errs = append(errs, neededFor(err, pkg))
			continue
		}
		provs = append(provs, p)
	}
	for _, pkg := range pf.Explicit {
		if _, err := d.plugin(ctx, pkg.Name, pkg.Version, pkg.Server); err != nil {
			errs = append(errs, neededFor(err, pkg))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var wg sync.WaitGroup
	errs = make([]error, len(provs))
	for i, p := range provs {
		if p.configurable != nil {
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
	dr, err := d.admit(ctx, r)
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
	dr.commit, err = d.runStep(d.workCtx, dr)
	if d.sem != nil {
		<-d.sem
	}
	if err != nil && !errors.Is(err, source.ErrNotAttempted) {
		d.stopped.Store(true)
		d.mu.Lock()
		d.stepErrs = append(d.stepErrs, err)
		d.mu.Unlock()
	}
	return dr, err
}

// Record records the step of the registration and returns its answer.
func (dr *declared) Record() source.Answer {
	if dr.commit != nil {
		dr.d.mu.Lock()
		dr.commit()
		dr.d.mu.Unlock()
	}
	return dr.answer
}

// admit records a registration and finds its recorded state (under its
// URN, else under one of its aliases). After a failed step, or once the
// operation is canceled, registrations are not attempted.
func (d *deployment) admit(ctx context.Context, r *source.Registration) (*declared, error) {
	if ctx.Err() != nil || d.stopped.Load() {
		return nil, source.ErrNotAttempted
	}
	dr := &declared{r: r, d: d, deps: r.Dependencies, propDeps: r.PropertyDependencies}
	d.regMu.Lock()
	defer d.regMu.Unlock()
	if d.registered[r.URN] != nil {
		err := fmt.Errorf("%s is registered twice; give one of the two resources another name", r.URN)
		d.stopped.Store(true)
		d.mu.Lock()
		d.stepErrs = append(d.stepErrs, err)
		d.mu.Unlock()
		return nil, err
	}
	d.registered[r.URN] = dr
	// An old record is taken once: under its URN, else under an alias
	// that no other registration took.
	if old := d.oldLive[r.URN]; old != nil && !d.claimed[old] {
		dr.old = old
	}
	for _, a := range r.Aliases {
		if old := d.oldLive[a]; dr.old == nil && old != nil && !d.claimed[old] && d.registered[a] == nil {
			dr.old = old
		}
	}
	if dr.old != nil && (len(r.Aliases) > 0 || d.anyAliased) {
		d.claimed[dr.old] = true
		d.anyAliased = d.anyAliased || dr.old.URN != r.URN
	}
	return dr, nil
}

// runStep runs the step of a registration: the root stack, a component,
// an explicit provider or a custom resource (after its provider).
func (d *deployment) runStep(ctx context.Context, dr *declared) (func(), error) {
	r := dr.r
	switch {
	case r.Type == resource.RootStackType && r.Parent == "":
		return d.runRoot(ctx, dr)
	case !r.Custom:
		return d.runComponent(ctx, dr)
	case isProvider(r.Type):
		return d.runExplicit(ctx, dr)
	}
	p, err := d.providerOf(ctx, dr)
	if err != nil {
		if errors.Is(err, source.ErrNotAttempted) {
			return d.fail(dr, err), err
		}
		return d.failEarly(dr, stepError(OpCreate, r, err))
	}
	d.useProvider(dr, p)
	d.bindProvider(dr)
	return d.runCustom(ctx, dr)
}

// runExplicit runs the step of an explicit provider the program registers.
func (d *deployment) runExplicit(ctx context.Context, dr *declared) (func(), error) {
	p, err := d.explicitProvider(ctx, dr)
	if err != nil {
		return d.failEarly(dr, err)
	}
	d.provMu.Lock()
	d.explicit[dr.r.URN] = p
	d.provMu.Unlock()
	commit, err := d.runExplicitProvider(ctx, p)
	p.err = err
	close(p.ready)
	return commit, err
}

// providerOf returns the provider of a custom resource: the explicit one
// it names (registered earlier in this run), else its package's default
// provider.
func (d *deployment) providerOf(ctx context.Context, dr *declared) (*providerRes, error) {
	r := dr.r
	if r.Provider == "" {
		return d.defaultProvider(ctx, r)
	}
	urn := providerURN(r.Provider)
	d.provMu.Lock()
	p := d.explicit[urn]
	d.provMu.Unlock()
	switch {
	case p == nil:
		return nil, fmt.Errorf("its provider %s is not registered by the program; register the provider before the resources that use it", r.Provider)
	case p.pkg != resource.Package(r.Type):
		return nil, fmt.Errorf("its provider %s is a provider of package %q, not of its own package %q", urn, p.pkg, resource.Package(r.Type))
	}
	<-p.ready
	if p.err != nil {
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
	d.regMu.Lock()
	dr := d.registered[urn]
	d.regMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case dr == nil:
		return fmt.Errorf("registering the outputs of %s: the program has not registered it", urn)
	case dr.r.Type == resource.RootStackType && dr.r.Parent == "":
		d.outputs = outputs
		return nil
	case dr.r.Custom:
		return nil // a custom resource's outputs are its plugin's
	}
	for i, rec := range d.news {
		if rec.URN == urn {
			c := *rec
			c.Outputs = outputs
			d.news[i] = &c
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

// reserve makes room for n registrations.
func (d *deployment) reserve(n int) {
	d.regMu.Lock()
	if len(d.registered) == 0 {
		d.registered = make(map[resource.URN]*declared, n)
	}
	d.regMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.news) > 0 {
		return
	}
	d.news = make([]*state.Resource, 0, n+len(d.old.Resources)/8+1)
	if d.dryRun {
		d.plan = make([]Step, 0, n)
	}
}
