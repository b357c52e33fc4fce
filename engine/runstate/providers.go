package runstate

import (
	"context"
	"fmt"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// ProviderCache holds the plugins configured during one operation, one per
// provider reference "<URN>::<ID>": each provider is configured once.
type ProviderCache struct {
	mu    sync.Mutex
	byRef map[string]*configuredProvider
}

// configuredProvider is one provider's configured plugin, or the error of
// configuring it; ready is closed once either is set.
type configuredProvider struct {
	ready  chan struct{}
	plugin resource.Plugin
	err    error
}

// Get returns the plugin configured for ref, calling configure the first
// time ref is asked for (concurrent callers wait for it).
func (c *ProviderCache) Get(ctx context.Context, ref string, configure func(context.Context) (resource.Plugin, error)) (resource.Plugin, error) {
	c.mu.Lock()
	if c.byRef == nil {
		c.byRef = make(map[string]*configuredProvider)
	}
	e, ok := c.byRef[ref]
	if !ok {
		e = &configuredProvider{ready: make(chan struct{})}
		c.byRef[ref] = e
	}
	c.mu.Unlock()
	if ok {
		<-e.ready
		return e.plugin, e.err
	}
	e.plugin, e.err = configure(ctx)
	close(e.ready)
	return e.plugin, e.err
}

// Set records the plugin configured for ref, replacing any earlier one.
func (c *ProviderCache) Set(ref string, plugin resource.Plugin) {
	e := &configuredProvider{ready: make(chan struct{}), plugin: plugin}
	close(e.ready)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byRef == nil {
		c.byRef = make(map[string]*configuredProvider)
	}
	c.byRef[ref] = e
}

// PluginOf returns the plugin that serves the recorded resource res: for a
// configurable plugin, the one configured with the recorded inputs of the
// provider res names (configured on first use, without CheckConfig, as
// Pulumi loads a provider from state for refresh and destroy); for a
// built-in plugin, the plugin itself.
func (d *State) PluginOf(ctx context.Context, res *state.Resource) (resource.Plugin, error) {
	base, err := d.PluginFor(ctx, res)
	if err != nil {
		return nil, err
	}
	cp, ok := base.(resource.Configurable)
	if !ok {
		return base, nil
	}
	ref := res.Provider
	return d.Provs.Get(ctx, ref, func(ctx context.Context) (resource.Plugin, error) {
		prov := d.ProviderRecord(ref)
		if ref == "" {
			return nil, fmt.Errorf("the state of %s names no provider, and its plugin needs one configured; run `runner stack repair --project %s`", res.URN, d.Project)
		}
		if prov == nil {
			return nil, fmt.Errorf("the state of %s names provider %q, which the state does not hold; run `runner stack repair --project %s`", res.URN, ref, d.Project)
		}
		p, err := cp.Configure(ctx, resource.ConfigureRequest{URN: prov.URN, ID: prov.ID, Inputs: prov.Inputs})
		if err != nil {
			return nil, Redacted(fmt.Sprintf("configuring provider %s from its recorded config: %v", prov.URN.Name(), err), err, prov.Inputs)
		}
		return p, nil
	})
}

// ProviderRecord returns the recorded provider the reference names (nil:
// none).
func (d *State) ProviderRecord(ref string) *state.Resource {
	urn := state.ProviderURN(ref)
	if urn == "" {
		return nil
	}
	id := ref[len(urn)+len("::"):]
	for _, r := range d.Old.Resources {
		if r.URN == urn && r.ID == id {
			return r
		}
	}
	return nil
}

// BindProvider gives a declared custom resource its provider's configured
// plugin and reference once the provider's step is done. A resource whose
// recorded provider the new one replaces is replaced itself: its plugin's
// Diff says so, and calls about its old self (Read, Delete) go to the
// provider it was recorded with.
func (d *State) BindProvider(dr *Declared) {
	p := dr.Prov
	if p.Configurable == nil {
		return // dr.Plugin is set; no call replaces a built-in provider
	}
	dr.Plugin = p.Plugin
	dr.ProviderReplaced = dr.Old != nil && dr.Old.Provider != p.Ref() && p.Replacing[dr.Old.Provider]
	if dr.ProviderReplaced {
		old := dr.Old
		dr.Plugin = &replacedProviderPlugin{Plugin: p.Plugin, old: func(ctx context.Context) (resource.Plugin, error) {
			return d.PluginOf(ctx, old)
		}}
	}
}

// ProviderRef returns the reference "<URN>::<ID>" of the resource's
// provider, final once its provider's step is done.
func (dr *Declared) ProviderRef() string {
	if dr.Prov != nil {
		return dr.Prov.Ref()
	}
	return dr.Provider
}

// replacedProviderPlugin serves a resource whose provider is replaced: Diff
// answers "replace" (changed property "provider") without a call, as
// Pulumi does; Read and Delete, which concern the recorded resource, go to
// the plugin of the provider it was recorded with; the rest to the new one.
type replacedProviderPlugin struct {
	resource.Plugin
	old func(context.Context) (resource.Plugin, error)
}

// Diff says the resource must be replaced.
func (p *replacedProviderPlugin) Diff(context.Context, resource.DiffRequest) (resource.DiffResponse, error) {
	return resource.DiffResponse{Changed: []string{"provider"}, Replaces: []string{"provider"}}, nil
}

// Read reads the recorded resource through its recorded provider.
func (p *replacedProviderPlugin) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	old, err := p.old(ctx)
	if err != nil {
		return resource.ReadResponse{}, err
	}
	return old.Read(ctx, req)
}

// Delete deletes the recorded resource through its recorded provider.
func (p *replacedProviderPlugin) Delete(ctx context.Context, req resource.DeleteRequest) error {
	old, err := p.old(ctx)
	if err != nil {
		return err
	}
	return old.Delete(ctx, req)
}
