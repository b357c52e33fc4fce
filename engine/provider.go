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
	"github.com/runnerhq/runner/engine/stepgen"
)

// runConfiguredProvider runs the step of a configurable plugin's default
// provider: prepared (prepareProvider) before any step runs, it is
// recorded with its checked config as inputs and outputs (secrets kept
// secret).
func (d *deployment) runConfiguredProvider(ctx context.Context, p *runstate.Provider) (func(), error) {
	if err := d.prepareProvider(ctx, p); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	rec := &state.Resource{
		URN: p.URN, Custom: true, ID: p.ID, Type: runstate.ProviderTypePrefix + p.Pkg,
		Inputs: p.Change.Checked, Outputs: p.Change.Checked.Copy(0), Created: &now, Modified: &now,
	}
	if p.Change.Op == OpSame {
		c := *p.Old
		rec = &c
	}
	return d.recordProvider(ctx, p, rec)
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
	news, err := d.providerNews(p)
	ch := runstate.ProviderChange{Op: OpCreate}
	if p.Old != nil {
		ch.Op = OpUpdate
	}
	if err == nil {
		ch, err = d.decideProvider(ctx, p, news)
	}
	if err == nil && !d.DryRun && resource.ContainsComputed(map[string]any(ch.Checked)) {
		err = fmt.Errorf("its config holds values that are not known; an %s needs every value known", d.Kind)
	}
	if err == nil {
		err = d.configureProvider(ctx, p, ch)
	}
	if err != nil {
		err = runstate.Redacted(fmt.Sprintf("provider %s (%s): %v", p.URN.Name(), typ, err), err, news, inputsOf(p.Old))
		d.StepFailed(ch.Op, p.URN, typ, err, start)
		return err
	}
	p.Change, p.Prepared = ch, true
	p.ConfigUnknown = resource.ContainsComputed(map[string]any(ch.Checked))
	return nil
}

// providerNews returns a provider's new inputs: a default provider's from
// the stack config (providerInputs), an explicit provider's its declared
// inputs; both with the plugin's version.
func (d *deployment) providerNews(p *runstate.Provider) (resource.PropertyMap, error) {
	if p.Decl == nil {
		return stepgen.ProviderInputs(d.opts.Config, p.Pkg, p.Configurable.Version())
	}
	news, err := d.inputs(p.Decl)
	if err != nil {
		return nil, fmt.Errorf("resolving its inputs: %w", err)
	}
	if v := p.Configurable.Version(); v != "" {
		news["version"] = v
	}
	return news, nil
}

// decideProvider checks the provider's config and decides its step. It
// also finds which recorded default providers of the package the new
// config replaces (p.Replacing): their resources are replaced.
func (d *deployment) decideProvider(ctx context.Context, p *runstate.Provider, news resource.PropertyMap) (runstate.ProviderChange, error) {
	typ := runstate.ProviderTypePrefix + p.Pkg
	ch := runstate.ProviderChange{Op: OpCreate}
	olds := resource.PropertyMap{}
	if p.Old != nil {
		ch.Op, olds = OpSame, p.Old.Inputs
	}
	checked, err := p.Configurable.CheckConfig(ctx, resource.CheckRequest{URN: p.URN, Type: typ, Olds: olds, News: news})
	if err != nil {
		return ch, fmt.Errorf("checking its config: %w", err)
	}
	ch.Checked = stepexec.SecretOutputs(checked, news, nil)
	p.Replacing = map[string]bool{}
	for _, r := range d.Old.Resources {
		if r.Type != typ || r.Delete || !mayReplace(p, r) {
			continue // a condemned provider's resources are being deleted anyway
		}
		changed, replace, err := d.diffProvider(ctx, p, r, ch.Checked)
		if err != nil {
			return ch, fmt.Errorf("comparing its config with the recorded one of %s: %w", r.URN.Name(), err)
		}
		if replace {
			p.Replacing[string(r.URN)+"::"+r.ID] = true
		}
		if r == p.Old {
			switch {
			case replace:
				ch.Op = OpReplace
			case changed:
				ch.Op = OpUpdate
			}
		}
	}
	return ch, nil
}

// diffProvider asks DiffConfig how the recorded provider old differs from
// the checked config news. When the plugin cannot tell, the recorded
// outputs are compared with news (a change, never a replacement).
func (d *deployment) diffProvider(ctx context.Context, p *runstate.Provider, old *state.Resource, news resource.PropertyMap) (changed, replace bool, err error) {
	diff, err := p.Configurable.DiffConfig(ctx, resource.DiffRequest{
		URN: old.URN, Type: old.Type, ID: old.ID, OldInputs: old.Inputs, OldOutputs: old.Outputs, NewInputs: news,
	})
	if err != nil {
		return false, false, err
	}
	replace = len(diff.Replaces) > 0
	for _, pd := range diff.Detailed {
		replace = replace || pd.Kind.Replaces()
	}
	changed = replace || diff.ChangedUnnamed || len(diff.Changed) > 0 || len(diff.Detailed) > 0
	if diff.Unknown && !changed {
		changed = len(resource.DiffKeys(old.Outputs, news, nil)) > 0
	}
	return changed, replace, nil
}

// configureProvider gives a replaced provider its new ID and configures the
// plugin with the checked config (an unchanged provider reuses a plugin
// already configured from its record in this operation).
func (d *deployment) configureProvider(ctx context.Context, p *runstate.Provider, ch runstate.ProviderChange) error {
	if ch.Op == OpReplace {
		p.ID = runstate.NewUUID()
		if d.DryRun {
			p.ID = resource.UnknownStringValue
		}
	}
	configure := func(ctx context.Context) (resource.Plugin, error) {
		return p.Configurable.Configure(ctx, resource.ConfigureRequest{URN: p.URN, ID: p.ID, Inputs: ch.Checked})
	}
	var err error
	if ch.Op == OpSame {
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

// mayReplace reports whether the provider's new config may replace the
// resources of the recorded provider r: r is the provider's own record, or
// that of a resource using it now, or (for a default provider) another
// default provider of the package.
func mayReplace(p *runstate.Provider, r *state.Resource) bool {
	return r == p.Old || p.FromRefs[string(r.URN)+"::"+r.ID] ||
		p.Decl == nil && strings.HasPrefix(r.URN.Name(), "default")
}

// recordProvider journals a provider's step (not an unchanged one) as the
// record rec and returns the function that records it. Its update or
// replace (a new configuration, such as the kubeconfig of a cluster made
// again) is shown as a step in preview and up alike; its create is not,
// as it comes with the project's first resources. A replaced
// provider's old record stays, condemned, until the resources that name it
// are deleted.
func (d *deployment) recordProvider(ctx context.Context, p *runstate.Provider, rec *state.Resource) (func(), error) {
	ch := p.Change
	now := time.Now().UTC()
	shown := ch.Op == OpUpdate || ch.Op == OpReplace // a reconfiguration
	if shown {
		d.StepStart(ch.Op, p.URN, rec.Type, nil)
	}
	var err error
	switch ch.Op {
	case OpCreate:
		err = d.journalPlain(ctx, OpCreate, nil, rec)
	case OpUpdate:
		rec.Created = p.Old.Created
		err = d.journalPlain(ctx, OpUpdate, p.Old, rec)
	case OpReplace:
		err = d.journalPlain(ctx, OpCreateReplacement, p.Old, rec)
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
		case ch.Op == OpReplace:
			c := *p.Old
			c.Delete, c.Protect = true, false
			d.Fate[p.Old] = &c
		case p.Old != nil:
			d.Fate[p.Old] = nil
		}
	}, nil
}

// inputsOf returns the inputs of r (nil for nil).
func inputsOf(r *state.Resource) resource.PropertyMap {
	if r == nil {
		return nil
	}
	return r.Inputs
}
