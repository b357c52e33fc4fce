package plugins

import (
	"context"
	"fmt"
	"sync"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// cloud is what differs between the fake providers: their configuration,
// defaults, IDs and computed outputs.
type cloud interface {
	// configKeys returns the configuration keys the provider accepts
	// besides version and pluginDownloadURL.
	configKeys() []string
	// checkConfig returns what is wrong with a configuration whose values
	// are all known (nil when it is fine); configure takes it for the
	// resource calls after validating it the same way.
	checkConfig(cfg config) []plugin.CheckFailure
	configure(cfg config) error
	// fill sets the defaults of a checked resource's inputs in place:
	// autonames, constants.
	fill(typ string, req plugin.CheckRequest, news resource.PropertyMap)
	// newID returns a new resource's ID.
	newID(typ string, inputs resource.PropertyMap) string
	// outputs sets the outputs computed for typ into outs (which holds the
	// inputs already), taking random values through g.
	outputs(typ string, g *gen, inputs, outs resource.PropertyMap)
	// replaces reports whether a change of the input key replaces typ.
	replaces(typ string, key resource.PropertyKey, olds, news resource.PropertyMap) bool
	// beforeDelete fails the deletion of rec when the cloud would refuse it.
	beforeDelete(s *store, rec *Record, outputs resource.PropertyMap) error
}

// provider serves one contract with one cloud through Pulumi's provider
// server.
type provider struct {
	plugin.UnimplementedProvider

	contract *Contract
	cloud    cloud

	mu    sync.Mutex
	store *store // set by Configure
}

// Handshake accepts secrets and resource references.
func (p *provider) Handshake(context.Context, plugin.ProviderHandshakeRequest) (*plugin.ProviderHandshakeResponse, error) {
	return &plugin.ProviderHandshakeResponse{AcceptSecrets: true, AcceptResources: true}, nil
}

// GetPluginInfo reports the contract's version.
func (p *provider) GetPluginInfo(context.Context) (plugin.PluginInfo, error) {
	v, err := semver.Parse(p.contract.Version)
	if err != nil {
		return plugin.PluginInfo{}, fmt.Errorf("the %s contract's version: %w", p.contract.Package, err)
	}
	return plugin.PluginInfo{Version: &v}, nil
}

// SignalCancellation has nothing to cancel: every call is quick.
func (p *provider) SignalCancellation(context.Context) error { return nil }

// CheckConfig refuses configuration keys the real provider does not have
// and, when every value is known, what the cloud finds wrong.
func (p *provider) CheckConfig(_ context.Context, req plugin.CheckConfigRequest) (plugin.CheckConfigResponse, error) {
	allowed := map[string]bool{"version": true, "pluginDownloadURL": true}
	for _, k := range p.cloud.configKeys() {
		allowed[k] = true
	}
	var failures []plugin.CheckFailure
	for _, k := range sortedKeys(req.News) {
		if !allowed[k] {
			failures = append(failures, plugin.CheckFailure{Property: resource.PropertyKey(k), Reason: fmt.Sprintf(
				"`%s:%s` is not a valid configuration key for the %s provider. If the referenced key is not intended for the provider, please choose a different namespace from `%s:`.",
				p.contract.Package, k, p.contract.Package, p.contract.Package)})
		}
	}
	if cfg, known := readConfig(req.News); known && len(failures) == 0 {
		failures = p.cloud.checkConfig(cfg)
	}
	return plugin.CheckConfigResponse{Properties: req.News, Failures: failures}, nil
}

// DiffConfig reports the changed configuration keys; they update the
// provider (its resources stay).
func (p *provider) DiffConfig(_ context.Context, req plugin.DiffConfigRequest) (plugin.DiffConfigResponse, error) {
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	return diffMaps(olds, req.NewInputs, func(resource.PropertyKey) bool { return false }), nil
}

// Configure validates the configuration and opens the fake cloud.
func (p *provider) Configure(_ context.Context, req plugin.ConfigureRequest) (plugin.ConfigureResponse, error) {
	cfg, known := readConfig(req.Inputs)
	if !known {
		return plugin.ConfigureResponse{}, status.Errorf(codes.InvalidArgument,
			"%s: Configure got unknown configuration values; it needs known ones", p.contract.Package)
	}
	if err := p.cloud.configure(cfg); err != nil {
		return plugin.ConfigureResponse{}, status.Error(codes.InvalidArgument, err.Error())
	}
	s, err := openStore(p.contract.Package)
	if err != nil {
		return plugin.ConfigureResponse{}, status.Error(codes.FailedPrecondition, err.Error())
	}
	p.mu.Lock()
	p.store = s
	p.mu.Unlock()
	return plugin.ConfigureResponse{}, nil
}

// configured returns the fake cloud, or an error before Configure.
func (p *provider) configured(method string) (*store, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.store == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%s: %s before Configure", p.contract.Package, method)
	}
	return p.store, nil
}

// spec returns the contract of typ, or an InvalidArgument error.
func (p *provider) spec(typ string) (ResourceSpec, error) {
	spec, ok := p.contract.Resources[typ]
	if !ok {
		return spec, status.Errorf(codes.InvalidArgument, "unknown resource type %q: the %s provider %s has no such resource",
			typ, p.contract.Package, p.contract.Version)
	}
	return spec, nil
}

// Check fills the defaults (autonames, constants) and checks the inputs
// against the contract.
func (p *provider) Check(_ context.Context, req plugin.CheckRequest) (plugin.CheckResponse, error) {
	typ := string(req.Type)
	news := req.News.Copy()
	if news == nil {
		news = resource.PropertyMap{}
	}
	if _, ok := p.contract.Resources[typ]; ok {
		p.cloud.fill(typ, req, news)
	}
	failures := p.contract.Check(typ, news)
	if c, ok := p.cloud.(interface {
		check(typ string, news resource.PropertyMap) []plugin.CheckFailure
	}); ok {
		failures = append(failures, c.check(typ, news)...)
	}
	return plugin.CheckResponse{Properties: news, Failures: failures}, nil
}

// Diff compares the old inputs with the new, top-level key by key.
func (p *provider) Diff(_ context.Context, req plugin.DiffRequest) (plugin.DiffResponse, error) {
	typ := string(req.Type)
	spec, err := p.spec(typ)
	if err != nil {
		return plugin.DiffResponse{}, err
	}
	olds := req.OldInputs
	if len(olds) == 0 { // only old outputs: keep the keys that are inputs
		olds = resource.PropertyMap{}
		for k, v := range req.OldOutputs {
			if _, ok := spec.Inputs[string(k)]; ok {
				olds[k] = v
			}
		}
	}
	return diffMaps(olds, req.NewInputs, func(k resource.PropertyKey) bool {
		for _, r := range spec.ReplaceOnChanges {
			if r == string(k) {
				return true
			}
		}
		return p.cloud.replaces(typ, k, olds, req.NewInputs)
	}), nil
}
