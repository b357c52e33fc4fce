package runstate

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync/atomic"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// Declared is a registered resource with what its step needs.
type Declared struct {
	R   *source.Registration
	Old *state.Resource
	// Plugin serves the resource: a built-in plugin from the start; a
	// configurable one's configured plugin once its provider is ready.
	Plugin resource.Plugin
	// Provider is the provider reference "<URN>::<ID>" (ProviderRef gives
	// the final one once the provider's step is done).
	Provider string
	Prov     *Provider
	// ProviderReplaced says the resource's recorded provider is replaced by
	// Prov: the resource must be replaced too.
	ProviderReplaced bool
	Deps             []resource.URN
	PropDeps         map[string][]resource.URN
	Step             plan.Step // the decided step (Op "": none)

	// Commit records the step (Record); it sets the answer.
	st     *State
	Commit func()
	Answer source.Answer
	Err    error
}

// Record records the step of the registration and returns its answer.
func (dr *Declared) Record() source.Answer {
	if dr.Commit != nil {
		dr.st.Mu.Lock()
		dr.Commit()
		dr.st.Mu.Unlock()
	}
	return dr.Answer
}

// ProviderChange is what a provider's step does.
type ProviderChange struct {
	Op      plan.Op // OpCreate, OpSame, OpUpdate or OpReplace
	Checked resource.PropertyMap
}

// Provider is a provider resource: the default provider of one package
// (Pulumi's pulumi:providers:<pkg>::default_x_y_z) or an explicit provider
// the program registers (Decl set).
type Provider struct {
	Pkg  string
	URN  resource.URN
	ID   string // changed when the provider is replaced
	Old  *state.Resource
	Base resource.Plugin
	// Configurable is Base when it is a resource.Configurable (nil: a
	// built-in plugin, whose provider has no inputs and makes no call).
	Configurable resource.Configurable
	// Decl is an explicit provider's registration (nil: a default provider).
	Decl *Declared
	// Param is a default provider's parameterization (nil: its plugin
	// serves its own package), recorded in its inputs.
	Param *resource.Parameterization
	// FromRefs are the recorded provider references of the recorded
	// resources that use the provider now: DiffConfig against each says
	// whether they are replaced.
	FromRefs map[string]bool

	// Set when the provider is prepared (decided and configured), read by
	// the steps of its resources, which run after the provider's step.
	Prepared      bool
	Change        ProviderChange
	ConfigUnknown bool            // the checked config holds unknowns (preview)
	Plugin        resource.Plugin // Base, configured
	Replacing     map[string]bool // recorded provider references whose resources are replaced

	// Started says a registration runs the provider's step; Ready is
	// closed once it is done, Err is its error.
	Started atomic.Bool
	Ready   chan struct{}
	Err     error
}

// Ref returns the provider reference "<URN>::<ID>" resources record.
func (p *Provider) Ref() string { return string(p.URN) + "::" + p.ID }

// UseProvider makes the custom resource dr use the provider p.
func (d *State) UseProvider(dr *Declared, p *Provider) {
	dr.Prov, dr.Provider = p, p.Ref()
	if p.Configurable == nil {
		dr.Plugin = p.Base
	}
	if dr.Old != nil && dr.Old.Provider != "" && p.Configurable != nil && !p.Prepared { // else decided already
		d.provMu.Lock()
		p.FromRefs[dr.Old.Provider] = true
		d.provMu.Unlock()
	}
}

// NewExplicitProvider returns the explicit provider the registration dr
// declares, of package pkg, served by base.
func (d *State) NewExplicitProvider(dr *Declared, pkg string, base resource.Plugin, cp resource.Configurable) *Provider {
	p := &Provider{Pkg: pkg, URN: dr.R.URN, Old: dr.Old, Base: base, Configurable: cp,
		Decl: dr, FromRefs: map[string]bool{}, Ready: make(chan struct{})}
	p.Started.Store(true)
	p.ID = d.providerID(p)
	return p
}

// AddExplicit records an explicit provider registered in this run.
func (d *State) AddExplicit(p *Provider) {
	d.provMu.Lock()
	d.explicit[p.URN] = p
	d.provMu.Unlock()
}

// Explicit returns the explicit provider registered as urn (nil: none).
func (d *State) Explicit(urn resource.URN) *Provider {
	d.provMu.Lock()
	defer d.provMu.Unlock()
	return d.explicit[urn]
}

// newDefaultProvider returns the default provider of the plugin base (not
// yet run): a configurable plugin's is named after its version, as Pulumi
// names it; its ID is kept from the previous state.
func (d *State) newDefaultProvider(pkg string, base resource.Plugin) (*Provider, error) {
	p := &Provider{Pkg: pkg, Base: base, FromRefs: map[string]bool{}, Ready: make(chan struct{})}
	name := "default"
	if cp, ok := base.(resource.Configurable); ok {
		p.Configurable = cp
		var err error
		if name, err = DefaultProviderName(cp.Version()); err != nil {
			return nil, fmt.Errorf("the %s plugin: %w", pkg, err)
		}
	}
	p.URN = resource.NewURN(d.Stack, d.Project, "", ProviderTypePrefix+pkg, name)
	p.Old = d.OldLive[p.URN]
	p.ID = d.providerID(p)
	return p, nil
}

// providerID returns the ID a provider starts with: the recorded one, else
// a new UUID (the unknown ID for a configurable plugin's during preview).
func (d *State) providerID(p *Provider) string {
	switch {
	case p.Old != nil && p.Old.ID != "":
		return p.Old.ID
	case p.Configurable != nil && d.DryRun:
		return resource.UnknownStringValue
	}
	return NewUUID()
}

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// DefaultProviderFor returns the default provider of pkg at version
// (for a parameterized package, pz not nil: pz.Name at pz.Version),
// created (not run) when new.
func (d *State) DefaultProviderFor(ctx context.Context, pkg, version, url string, pz *resource.Parameterization) (*Provider, error) {
	key := pluginKey{pkg, version, url, ""}
	if pz != nil {
		key = pluginKey{pz.Name, pz.Version, url, pz.Base + "@" + pz.BaseVersion + "\x00" + string(pz.Value)}
		pkg = pz.Name
	}
	if p, ok := d.defaultByKey.Load(key); ok {
		return p.(*Provider), nil
	}
	base, err := d.PackagePlugin(ctx, pkg, version, url, pz)
	if err != nil {
		return nil, err
	}
	p, err := d.newDefaultProvider(pkg, base)
	if err != nil {
		return nil, err
	}
	p.Param = pz
	d.provMu.Lock()
	defer d.provMu.Unlock()
	if had := d.defaults[p.URN]; had != nil {
		p = had
	}
	d.defaults[p.URN] = p
	d.defaultByKey.Store(key, p)
	return p, nil
}

// NewRecord builds the state record of a declared resource before its
// plugin runs (no ID, no outputs).
func (dr *Declared) NewRecord(inputs resource.PropertyMap) *state.Resource {
	r := dr.R
	rec := &state.Resource{
		URN: r.URN, Custom: r.Custom, Type: r.Type, Inputs: inputs,
		Protect: r.Protect, Dependencies: dr.Deps, PropertyDependencies: dr.PropDeps,
		Provider: dr.ProviderRef(), AdditionalSecretOutputs: r.AdditionalSecretOutputs,
		RetainOnDelete: r.RetainOnDelete, IgnoreChanges: r.IgnoreChanges, DeletedWith: r.DeletedWith,
	}
	rec.Parent = r.Parent
	return rec
}

// CustomStep is the decided step of a custom resource, which the step
// generator decides and the step executor runs: the step value and the
// record it makes (checked inputs; no ID or outputs yet).
type CustomStep struct {
	Step plan.Step
	Rec  *state.Resource
	Keys []string // the changed top-level properties, for events and Result.Steps
	// Read is what Read returned for an import.
	Read *resource.ReadResponse
	// Dependents are the old records replaced along with a
	// delete-before-replace replacement, in the order they are deleted.
	Dependents []*state.Resource
}

// Doomed is a recorded resource to delete: Orig is its record in the old
// snapshot (the key of its fate), Res the record to delete.
type Doomed struct {
	Orig *state.Resource
	Res  *state.Resource
	Op   plan.Op
	// Replaced: the old half of a replacement this operation made (its
	// step is the replacement's, not a delete of its own)
	Replaced bool
}

// InputsOf returns the inputs of r (nil for nil).
func InputsOf(r *state.Resource) resource.PropertyMap {
	if r == nil {
		return nil
	}
	return r.Inputs
}
