package plugintest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/runnerhq/runner/engine/resource"
)

// ErrNotConfigured is the error of a resource call made on a Provider
// itself rather than on the plugin its Configure returned.
var ErrNotConfigured = errors.New("plugintest: resource call on a provider that was not configured")

// Provider is a configurable test plugin (resource.Configurable), as a
// Pulumi provider plugin is: its own resource calls fail with
// ErrNotConfigured; Configure returns a *Configured that serves them
// through Plugin (one store for every configuration). Every configuration
// call is recorded.
//
// By default CheckConfig returns the new inputs unchanged and DiffConfig
// compares the old and new inputs, replacing on changes to ReplaceKeys.
type Provider struct {
	// Plugin serves the configured calls; it must be set.
	Plugin *Plugin
	// Ver is the version reported ("": not known).
	Ver string
	// ReplaceKeys lists the config keys whose change replaces the provider.
	ReplaceKeys []string

	OnCheckConfig func(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error)
	OnDiffConfig  func(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error)
	// OnConfigure, when set, may refuse a configuration.
	OnConfigure func(ctx context.Context, req resource.ConfigureRequest) error

	mu         sync.Mutex
	checks     []resource.CheckRequest
	diffs      []resource.DiffRequest
	configured []*Configured
}

var _ resource.Configurable = (*Provider)(nil)

// Package returns the package of Plugin.
func (p *Provider) Package() string { return p.Plugin.Package() }

// Version returns Ver.
func (p *Provider) Version() string { return p.Ver }

// CheckConfig records the call and calls OnCheckConfig, or returns the new
// inputs.
func (p *Provider) CheckConfig(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	p.mu.Lock()
	p.checks = append(p.checks, req)
	p.mu.Unlock()
	if p.OnCheckConfig != nil {
		return p.OnCheckConfig(ctx, req)
	}
	return req.News.Copy(0), nil
}

// DiffConfig records the call and calls OnDiffConfig, or compares the
// inputs.
func (p *Provider) DiffConfig(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	p.mu.Lock()
	p.diffs = append(p.diffs, req)
	p.mu.Unlock()
	if p.OnDiffConfig != nil {
		return p.OnDiffConfig(ctx, req)
	}
	changed := resource.DiffKeys(req.OldInputs, req.NewInputs, nil)
	var replaces []string
	for _, k := range changed {
		for _, r := range p.ReplaceKeys {
			if k == r {
				replaces = append(replaces, k)
			}
		}
	}
	return resource.DiffResponse{Changed: changed, Replaces: replaces}, nil
}

// Configure records the call and returns a *Configured (unless OnConfigure
// refuses).
func (p *Provider) Configure(ctx context.Context, req resource.ConfigureRequest) (resource.Plugin, error) {
	if p.OnConfigure != nil {
		if err := p.OnConfigure(ctx, req); err != nil {
			return nil, err
		}
	}
	c := &Configured{Plugin: p.Plugin, Request: req}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.configured = append(p.configured, c)
	return c, nil
}

// CheckConfigs returns the CheckConfig requests so far.
func (p *Provider) CheckConfigs() []resource.CheckRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]resource.CheckRequest(nil), p.checks...)
}

// DiffConfigs returns the DiffConfig requests so far.
func (p *Provider) DiffConfigs() []resource.DiffRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]resource.DiffRequest(nil), p.diffs...)
}

// Configurations returns the plugins Configure returned so far, in order.
func (p *Provider) Configurations() []*Configured {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Configured(nil), p.configured...)
}

// Reset forgets the configuration calls recorded so far.
func (p *Provider) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.checks, p.diffs, p.configured = nil, nil, nil
}

// The resource calls of an unconfigured provider fail.

// Check fails: the provider is not configured.
func (p *Provider) Check(context.Context, resource.CheckRequest) (resource.PropertyMap, error) {
	return nil, ErrNotConfigured
}

// Diff fails: the provider is not configured.
func (p *Provider) Diff(context.Context, resource.DiffRequest) (resource.DiffResponse, error) {
	return resource.DiffResponse{}, ErrNotConfigured
}

// Create fails: the provider is not configured.
func (p *Provider) Create(context.Context, resource.CreateRequest) (resource.CreateResponse, error) {
	return resource.CreateResponse{}, ErrNotConfigured
}

// Read fails: the provider is not configured.
func (p *Provider) Read(context.Context, resource.ReadRequest) (resource.ReadResponse, error) {
	return resource.ReadResponse{}, ErrNotConfigured
}

// Update fails: the provider is not configured.
func (p *Provider) Update(context.Context, resource.UpdateRequest) (resource.UpdateResponse, error) {
	return resource.UpdateResponse{}, ErrNotConfigured
}

// Delete fails: the provider is not configured.
func (p *Provider) Delete(context.Context, resource.DeleteRequest) error {
	return ErrNotConfigured
}

// Configured is the plugin a Provider's Configure returns: it serves every
// resource call through Plugin and counts them.
type Configured struct {
	*Plugin
	// Request is the ConfigureRequest that made it.
	Request resource.ConfigureRequest
	calls   atomic.Int64
}

// Calls returns how many resource calls it served.
func (c *Configured) Calls() int { return int(c.calls.Load()) }

// Check counts the call and passes it on.
func (c *Configured) Check(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	c.calls.Add(1)
	return c.Plugin.Check(ctx, req)
}

// Diff counts the call and passes it on.
func (c *Configured) Diff(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	c.calls.Add(1)
	return c.Plugin.Diff(ctx, req)
}

// Create counts the call and passes it on.
func (c *Configured) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	c.calls.Add(1)
	return c.Plugin.Create(ctx, req)
}

// Read counts the call and passes it on.
func (c *Configured) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	c.calls.Add(1)
	return c.Plugin.Read(ctx, req)
}

// Update counts the call and passes it on.
func (c *Configured) Update(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	c.calls.Add(1)
	return c.Plugin.Update(ctx, req)
}

// Delete counts the call and passes it on.
func (c *Configured) Delete(ctx context.Context, req resource.DeleteRequest) error {
	c.calls.Add(1)
	return c.Plugin.Delete(ctx, req)
}
