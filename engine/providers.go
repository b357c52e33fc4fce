package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
)

// defaultProvider returns the default provider of the package of r, its
// step run once (by the first registration that needs it; the others wait
// for it).
func (d *deployment) defaultProvider(ctx context.Context, r *source.Registration) (*runstate.Provider, error) {
	p, err := d.DefaultProviderFor(ctx, resource.Package(r.Type), r.Version, r.PluginDownloadURL, r.Parameterization)
	if err != nil {
		return nil, err
	}
	if p.Started.CompareAndSwap(false, true) {
		commit, err := d.runProvider(ctx, p)
		if commit != nil {
			d.Mu.Lock()
			commit()
			d.Mu.Unlock()
		}
		p.Err = err
		close(p.Ready)
		if err != nil {
			return nil, err
		}
	}
	<-p.Ready
	if p.Err != nil {
		return nil, fmt.Errorf("%w (the provider %s failed)", source.ErrNotAttempted, p.URN.Name())
	}
	return p, nil
}

// prepareProvider decides a configurable provider's step and configures
// its plugin, once: CheckConfig, then (when recorded) DiffConfig to decide
// between same, update and replace (a new ID), then Configure. Every
// resource of the provider then calls the configured plugin. A failure
// names the provider (secrets redacted) and is reported as a failed step.
func (d *deployment) prepareProvider(ctx context.Context, p *runstate.Provider) error {
	if p.Prepared {
		return nil
	}
	start := time.Now()
	typ := runstate.ProviderTypePrefix + p.Pkg
	news, err := d.gen.ProviderNews(p)
	ch := runstate.ProviderChange{Op: OpCreate}
	if p.Old != nil {
		ch.Op = OpUpdate
	}
	if err == nil {
		ch, err = d.gen.DecideProvider(ctx, p, news)
	}
	if err == nil && !d.DryRun && resource.ContainsComputed(map[string]any(ch.Checked)) {
		err = fmt.Errorf("its config holds values that are not known; an %s needs every value known", d.Kind)
	}
	if err == nil {
		err = d.exec.ConfigureProvider(ctx, p, ch)
	}
	if err != nil {
		err = runstate.Redacted(fmt.Sprintf("provider %s (%s): %v", p.URN.Name(), typ, err), err, news, runstate.InputsOf(p.Old))
		d.StepFailed(ch.Op, p.URN, typ, err, start)
		return err
	}
	p.Change, p.Prepared = ch, true
	p.ConfigUnknown = resource.ContainsComputed(map[string]any(ch.Checked))
	return nil
}

// runProvider runs the step of a default provider: a configurable
// plugin's is prepared (checked, diffed and configured) and then recorded;
// a built-in plugin's is recorded.
func (d *deployment) runProvider(ctx context.Context, p *runstate.Provider) (func(), error) {
	if p.Configurable == nil {
		return d.exec.RecordBuiltinProvider(ctx, p)
	}
	if err := d.prepareProvider(ctx, p); err != nil {
		return nil, err
	}
	return d.exec.RecordConfigured(ctx, p)
}

// Explicit providers (Pulumi's): a program declares a provider resource of
// type "pulumi:providers:<pkg>" with the plugin's configuration as inputs
// (which may hold outputs), and resources of <pkg> use it with the
// Provider option. Its step is a default provider's (prepareProvider,
// stepexec.Executor.RecordExplicit) on its declared inputs.

// runExplicitProvider runs the step of an explicit provider: prepared
// (unless it was before any step ran), checked against the plan being
// executed, recorded like a default provider with its declaration's
// parent, dependencies and options; its outputs are its checked config.
func (d *deployment) runExplicitProvider(ctx context.Context, p *runstate.Provider) (func(), error) {
	dr := p.Decl
	if err := d.prepareProvider(ctx, p); err != nil {
		return d.exec.FailStep(dr, err), err
	}
	ch := p.Change
	dr.Step = Step{Op: ch.Op, URN: dr.R.URN, Type: dr.R.Type, Deps: dr.Deps, NewInputs: ch.Checked,
		OldInputs: runstate.InputsOf(p.Old), Protect: dr.R.Protect, RetainOnDelete: dr.R.RetainOnDelete}
	if failed, err := d.checkPlanned(dr); err != nil {
		return failed, err
	}
	return d.exec.RecordExplicit(ctx, p)
}
