package stepgen

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

// ProviderInputs builds a default provider's inputs from the stack config:
// every key "<pkg>:<key>" as "key", its value a string (other values
// JSON-encoded; secrets stay secret, unknown values unknown), plus
// "version" when known.
func ProviderInputs(config map[string]any, pkg, version string) (resource.PropertyMap, error) {
	in := resource.PropertyMap{}
	prefix := pkg + ":"
	for k, v := range config {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		key := strings.TrimPrefix(k[len(prefix):], "config:")
		if key == "" {
			continue
		}
		s, err := ConfigString(v)
		if err != nil {
			return nil, fmt.Errorf("config key %s: %w", k, err)
		}
		in[key] = s
	}
	if version != "" {
		in["version"] = version
	}
	return in, nil
}

// ConfigString turns a config value into the string a provider receives.
func ConfigString(v any) (any, error) {
	switch x := v.(type) {
	case string, resource.Computed:
		return x, nil
	case resource.Secret:
		s, err := ConfigString(x.Element)
		if _, ok := s.(resource.Secret); ok || err != nil {
			return s, err
		}
		return resource.Secret{Element: s}, nil
	}
	if resource.ContainsComputed(v) {
		return resource.Computed{}, nil
	}
	plain, secret := resource.UnsecretDeep(v)
	b, err := json.Marshal(plain)
	if err != nil {
		return nil, fmt.Errorf("encoding it as JSON for the provider: %w", err)
	}
	if secret {
		return resource.Secret{Element: string(b)}, nil
	}
	return string(b), nil
}

// ProviderNews returns a provider's new inputs: a default provider's from
// the stack config (providerInputs), an explicit provider's its declared
// inputs; both with the plugin's version.
func (d *Generator) ProviderNews(p *runstate.Provider) (resource.PropertyMap, error) {
	if p.Decl == nil {
		news, err := ProviderInputs(d.Config, p.Pkg, p.Configurable.Version())
		if err == nil && p.Param != nil {
			resource.SetParameterization(news, p.Param)
		}
		return news, err
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

// DecideProvider checks the provider's config and decides its step. It
// also finds which recorded default providers of the package the new
// config replaces (p.Replacing): their resources are replaced.
func (d *Generator) DecideProvider(ctx context.Context, p *runstate.Provider, news resource.PropertyMap) (runstate.ProviderChange, error) {
	typ := runstate.ProviderTypePrefix + p.Pkg
	ch := runstate.ProviderChange{Op: plan.OpCreate}
	olds := resource.PropertyMap{}
	if p.Old != nil {
		ch.Op, olds = plan.OpSame, p.Old.Inputs
	}
	checked, err := p.Configurable.CheckConfig(ctx, resource.CheckRequest{URN: p.URN, Type: typ, Olds: olds, News: news})
	if err != nil {
		return ch, fmt.Errorf("checking its config: %w", err)
	}
	ch.Checked = resource.SecretOutputs(checked, news, nil)
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
				ch.Op = plan.OpReplace
			case changed:
				ch.Op = plan.OpUpdate
			}
		}
	}
	return ch, nil
}

// diffProvider asks DiffConfig how the recorded provider old differs from
// the checked config news. When the plugin cannot tell, the recorded
// outputs are compared with news (a change, never a replacement).
func (d *Generator) diffProvider(ctx context.Context, p *runstate.Provider, old *state.Resource, news resource.PropertyMap) (changed, replace bool, err error) {
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

// mayReplace reports whether the provider's new config may replace the
// resources of the recorded provider r: r is the provider's own record, or
// that of a resource using it now, or (for a default provider) another
// default provider of the package.
func mayReplace(p *runstate.Provider, r *state.Resource) bool {
	return r == p.Old || p.FromRefs[string(r.URN)+"::"+r.ID] ||
		p.Decl == nil && strings.HasPrefix(r.URN.Name(), "default")
}

// ExplicitProvider returns the provider the registration dr declares.
func (d *Generator) ExplicitProvider(ctx context.Context, dr *runstate.Declared) (*runstate.Provider, error) {
	r := dr.R
	pkg := strings.TrimPrefix(r.Type, runstate.ProviderTypePrefix)
	version, _ := r.Inputs["version"].(string)
	if version == "" {
		version = r.Version
	}
	pz, err := resource.ParameterizationOf(r.Type, r.Inputs)
	if err != nil {
		return nil, fmt.Errorf("the provider %s: %w", r.URN, err)
	}
	base, err := d.PackagePlugin(ctx, pkg, version, r.PluginDownloadURL, pz)
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
