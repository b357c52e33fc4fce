package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepexec"
	"github.com/runnerhq/runner/engine/stepgen"
)

// providerChange is what a default provider's step does.
type providerChange struct {
	op      Op // OpCreate, OpSame, OpUpdate or OpReplace
	checked resource.PropertyMap
}

// runConfiguredProvider runs the step of a configurable plugin's default
// provider: prepared (prepareProvider) before any step runs, it is
// recorded with its checked config as inputs and outputs (secrets kept
// secret).
func (d *deployment) runConfiguredProvider(ctx context.Context, p *providerRes) (func(), error) {
	if err := d.prepareProvider(ctx, p); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	rec := &state.Resource{
		URN: p.urn, Custom: true, ID: p.id, Type: providerTypePrefix + p.pkg,
		Inputs: p.ch.checked, Outputs: p.ch.checked.Copy(0), Created: &now, Modified: &now,
	}
	if p.ch.op == OpSame {
		c := *p.old
		rec = &c
	}
	return d.recordProvider(ctx, p, rec)
}

// prepareProvider decides a configurable provider's step and configures
// its plugin, once: CheckConfig, then (when recorded) DiffConfig to decide
// between same, update and replace (a new ID), then Configure. Every
// resource of the provider then calls the configured plugin. A failure
// names the provider (secrets redacted) and is reported as a failed step.
func (d *deployment) prepareProvider(ctx context.Context, p *providerRes) error {
	if p.prepared {
		return nil
	}
	start := time.Now()
	typ := providerTypePrefix + p.pkg
	news, err := d.providerNews(p)
	ch := providerChange{op: OpCreate}
	if p.old != nil {
		ch.op = OpUpdate
	}
	if err == nil {
		ch, err = d.decideProvider(ctx, p, news)
	}
	if err == nil && !d.dryRun && resource.ContainsComputed(map[string]any(ch.checked)) {
		err = fmt.Errorf("its config holds values that are not known; an %s needs every value known", d.kind)
	}
	if err == nil {
		err = d.configureProvider(ctx, p, ch)
	}
	if err != nil {
		err = &redactedError{
			msg: redact(fmt.Sprintf("provider %s (%s): %v", p.urn.Name(), typ, err), news, inputsOf(p.old)),
			err: err,
		}
		d.stepFailed(ch.op, p.urn, typ, err, start)
		return err
	}
	p.ch, p.prepared = ch, true
	p.configUnknown = resource.ContainsComputed(map[string]any(ch.checked))
	return nil
}

// providerNews returns a provider's new inputs: a default provider's from
// the stack config (providerInputs), an explicit provider's its declared
// inputs; both with the plugin's version.
func (d *deployment) providerNews(p *providerRes) (resource.PropertyMap, error) {
	if p.decl == nil {
		return stepgen.ProviderInputs(d.opts.Config, p.pkg, p.configurable.Version())
	}
	news, err := d.inputs(p.decl)
	if err != nil {
		return nil, fmt.Errorf("resolving its inputs: %w", err)
	}
	if v := p.configurable.Version(); v != "" {
		news["version"] = v
	}
	return news, nil
}

// decideProvider checks the provider's config and decides its step. It
// also finds which recorded default providers of the package the new
// config replaces (p.replacing): their resources are replaced.
func (d *deployment) decideProvider(ctx context.Context, p *providerRes, news resource.PropertyMap) (providerChange, error) {
	typ := providerTypePrefix + p.pkg
	ch := providerChange{op: OpCreate}
	olds := resource.PropertyMap{}
	if p.old != nil {
		ch.op, olds = OpSame, p.old.Inputs
	}
	checked, err := p.configurable.CheckConfig(ctx, resource.CheckRequest{URN: p.urn, Type: typ, Olds: olds, News: news})
	if err != nil {
		return ch, fmt.Errorf("checking its config: %w", err)
	}
	ch.checked = stepexec.SecretOutputs(checked, news, nil)
	p.replacing = map[string]bool{}
	for _, r := range d.old.Resources {
		if r.Type != typ || r.Delete || !p.mayReplace(r) {
			continue // a condemned provider's resources are being deleted anyway
		}
		changed, replace, err := d.diffProvider(ctx, p, r, ch.checked)
		if err != nil {
			return ch, fmt.Errorf("comparing its config with the recorded one of %s: %w", r.URN.Name(), err)
		}
		if replace {
			p.replacing[string(r.URN)+"::"+r.ID] = true
		}
		if r == p.old {
			switch {
			case replace:
				ch.op = OpReplace
			case changed:
				ch.op = OpUpdate
			}
		}
	}
	return ch, nil
}

// diffProvider asks DiffConfig how the recorded provider old differs from
// the checked config news. When the plugin cannot tell, the recorded
// outputs are compared with news (a change, never a replacement).
func (d *deployment) diffProvider(ctx context.Context, p *providerRes, old *state.Resource, news resource.PropertyMap) (changed, replace bool, err error) {
	diff, err := p.configurable.DiffConfig(ctx, resource.DiffRequest{
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
func (d *deployment) configureProvider(ctx context.Context, p *providerRes, ch providerChange) error {
	if ch.op == OpReplace {
		p.id = newUUID()
		if d.dryRun {
			p.id = resource.UnknownStringValue
		}
	}
	configure := func(ctx context.Context) (resource.Plugin, error) {
		return p.configurable.Configure(ctx, resource.ConfigureRequest{URN: p.urn, ID: p.id, Inputs: ch.checked})
	}
	var err error
	if ch.op == OpSame {
		p.plugin, err = d.provs.get(ctx, p.ref(), configure)
	} else {
		p.plugin, err = configure(ctx)
		if err == nil {
			d.provs.set(p.ref(), p.plugin)
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
func (p *providerRes) mayReplace(r *state.Resource) bool {
	return r == p.old || p.fromRefs[string(r.URN)+"::"+r.ID] ||
		p.decl == nil && strings.HasPrefix(r.URN.Name(), "default")
}

// recordProvider journals a provider's step (not an unchanged one) as the
// record rec and returns the function that records it. Its update or
// replace (a new configuration, such as the kubeconfig of a cluster made
// again) is shown as a step in preview and up alike; its create is not,
// as it comes with the project's first resources. A replaced
// provider's old record stays, condemned, until the resources that name it
// are deleted.
func (d *deployment) recordProvider(ctx context.Context, p *providerRes, rec *state.Resource) (func(), error) {
	ch := p.ch
	now := time.Now().UTC()
	shown := ch.op == OpUpdate || ch.op == OpReplace // a reconfiguration
	if shown {
		d.stepStart(ch.op, p.urn, rec.Type, nil)
	}
	var err error
	switch ch.op {
	case OpCreate:
		err = d.journalPlain(ctx, OpCreate, nil, rec)
	case OpUpdate:
		rec.Created = p.old.Created
		err = d.journalPlain(ctx, OpUpdate, p.old, rec)
	case OpReplace:
		err = d.journalPlain(ctx, OpCreateReplacement, p.old, rec)
	}
	if err != nil {
		err = fmt.Errorf("%s provider %s: %w", ch.op, p.urn.Name(), err)
		d.stepFailed(ch.op, p.urn, rec.Type, err, now)
		return nil, err
	}
	if shown {
		d.stepDone(ch.op, p.urn, rec.Type, nil, now)
	}
	return func() {
		d.news = append(d.news, rec)
		switch {
		case ch.op == OpReplace:
			c := *p.old
			c.Delete, c.Protect = true, false
			d.fate[p.old] = &c
		case p.old != nil:
			d.fate[p.old] = nil
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
