package engine

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync/atomic"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepgen"
)

// declared is a registered resource with what its step needs.
type declared struct {
	r   *source.Registration
	old *state.Resource
	// plugin serves the resource: a built-in plugin from the start; a
	// configurable one's configured plugin once its provider is ready.
	plugin resource.Plugin
	// provider is the provider reference "<URN>::<ID>" (providerRef gives
	// the final one once the provider's step is done).
	provider string
	prov     *providerRes
	// providerReplaced says the resource's recorded provider is replaced by
	// prov: the resource must be replaced too.
	providerReplaced bool
	deps             []resource.URN
	propDeps         map[string][]resource.URN
	step             Step // the decided step (Op "": none)

	// commit records the step (Record); it sets the answer.
	d      *deployment
	commit func()
	answer source.Answer
	err    error
}

// providerRes is a provider resource: the default provider of one package
// (Pulumi's pulumi:providers:<pkg>::default_x_y_z) or an explicit provider
// the program registers (decl set).
type providerRes struct {
	pkg  string
	urn  resource.URN
	id   string // changed when the provider is replaced
	old  *state.Resource
	base resource.Plugin
	// configurable is base when it is a resource.Configurable (nil: a
	// built-in plugin, whose provider has no inputs and makes no call).
	configurable resource.Configurable
	// decl is an explicit provider's registration (nil: a default provider).
	decl *declared
	// fromRefs are the recorded provider references of the recorded
	// resources that use the provider now: DiffConfig against each says
	// whether they are replaced.
	fromRefs map[string]bool

	// Set by prepareProvider, read by the steps of its resources, which run
	// after the provider's step.
	prepared      bool
	ch            providerChange
	configUnknown bool            // the checked config holds unknowns (preview)
	plugin        resource.Plugin // base, configured
	replacing     map[string]bool // recorded provider references whose resources are replaced

	// started says a registration runs the provider's step; ready is
	// closed once it is done, err is its error.
	started atomic.Bool
	ready   chan struct{}
	err     error
}

// ref returns the provider reference "<URN>::<ID>" resources record.
func (p *providerRes) ref() string { return string(p.urn) + "::" + p.id }

// useProvider makes the custom resource dr use the provider p.
func (d *deployment) useProvider(dr *declared, p *providerRes) {
	dr.prov, dr.provider = p, p.ref()
	if p.configurable == nil {
		dr.plugin = p.base
	}
	if dr.old != nil && dr.old.Provider != "" && p.configurable != nil && !p.prepared { // else decided already
		d.provMu.Lock()
		p.fromRefs[dr.old.Provider] = true
		d.provMu.Unlock()
	}
}

// newDefaultProvider returns the default provider of the plugin base (not
// yet run): a configurable plugin's is named after its version, as Pulumi
// names it; its ID is kept from the previous state.
func (d *deployment) newDefaultProvider(pkg string, base resource.Plugin) (*providerRes, error) {
	p := &providerRes{pkg: pkg, base: base, fromRefs: map[string]bool{}, ready: make(chan struct{})}
	name := "default"
	if cp, ok := base.(resource.Configurable); ok {
		p.configurable = cp
		var err error
		if name, err = stepgen.DefaultProviderName(cp.Version()); err != nil {
			return nil, fmt.Errorf("the %s plugin: %w", pkg, err)
		}
	}
	p.urn = resource.NewURN(d.opts.Stack, d.opts.Project, "", providerTypePrefix+pkg, name)
	p.old = d.oldLive[p.urn]
	p.id = d.providerID(p)
	return p, nil
}

// providerID returns the ID a provider starts with: the recorded one, else
// a new UUID (the unknown ID for a configurable plugin's during preview).
func (d *deployment) providerID(p *providerRes) string {
	switch {
	case p.old != nil && p.old.ID != "":
		return p.old.ID
	case p.configurable != nil && d.dryRun:
		return resource.UnknownStringValue
	}
	return newUUID()
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// defaultProvider returns the default provider of the package of r, its
// step run once (by the first registration that needs it; the others wait
// for it).
func (d *deployment) defaultProvider(ctx context.Context, r *source.Registration) (*providerRes, error) {
	p, err := d.defaultProviderFor(ctx, resource.Package(r.Type), r.Version, r.PluginDownloadURL)
	if err != nil {
		return nil, err
	}
	if p.started.CompareAndSwap(false, true) {
		commit, err := d.runProvider(ctx, p)
		if commit != nil {
			d.mu.Lock()
			commit()
			d.mu.Unlock()
		}
		p.err = err
		close(p.ready)
		if err != nil {
			return nil, err
		}
	}
	<-p.ready
	if p.err != nil {
		return nil, fmt.Errorf("%w (the provider %s failed)", source.ErrNotAttempted, p.urn.Name())
	}
	return p, nil
}

// defaultProviderFor returns the default provider of pkg at version,
// created (not run) when new.
func (d *deployment) defaultProviderFor(ctx context.Context, pkg, version, url string) (*providerRes, error) {
	key := pluginKey{pkg, version, url}
	if p, ok := d.defaultByKey.Load(key); ok {
		return p.(*providerRes), nil
	}
	base, err := d.plugin(ctx, pkg, version, url)
	if err != nil {
		return nil, err
	}
	p, err := d.newDefaultProvider(pkg, base)
	if err != nil {
		return nil, err
	}
	d.provMu.Lock()
	defer d.provMu.Unlock()
	if had := d.defaults[p.urn]; had != nil {
		p = had
	}
	d.defaults[p.urn] = p
	d.defaultByKey.Store(key, p)
	return p, nil
}
