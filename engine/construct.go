package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/monitor"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
)

// Construct constructs a multi-language (remote) component, as Pulumi's
// engine does: the provider of its package (the explicit one the program
// gave, else the package's default provider, prepared as for a custom
// resource) gets the run (monitor address, project, stack, config, dryRun)
// and the component's inputs and options, and registers the component and
// its children through the monitor; their steps are decided and run as
// any program's registrations. Its answer (URN, outputs and their
// dependencies) is the component's registration's answer.
func (d *deployment) Construct(ctx context.Context, req monitor.ConstructRequest) (resource.ConstructResponse, error) {
	cr := req.Request
	what := fmt.Sprintf("constructing the component %s %q", cr.Type, cr.Name)
	plugin, err := d.packagePlugin(ctx, cr.Type, req.Provider, req.Version, req.PluginDownloadURL)
	if err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	c, ok := plugin.(resource.Constructor)
	if !ok {
		return resource.ConstructResponse{}, fmt.Errorf("%s: the %s plugin is built into runner and serves no components", what, plugin.Package())
	}
	if cr.Run, err = d.componentRun(cr.MonitorAddress); err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	resp, err := c.Construct(ctx, cr)
	if err != nil {
		return resource.ConstructResponse{}, runstate.Redacted(fmt.Sprintf("%s: %v", what, err), err, cr.Inputs)
	}
	return resp, nil
}

// Call calls a method of a multi-language component (a token
// "<component type>/<method>") through its package's provider, as Pulumi's
// engine does: the provider gets the run and the arguments (the component
// as __self__), and may register resources through the monitor.
func (d *deployment) Call(ctx context.Context, req monitor.CallRequest) (resource.CallResponse, error) {
	cr := req.Request
	what := "calling " + cr.Token
	plugin, err := d.packagePlugin(ctx, cr.Token, req.Provider, req.Version, req.PluginDownloadURL)
	if err != nil {
		return resource.CallResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	c, ok := plugin.(resource.Caller)
	if !ok {
		return resource.CallResponse{}, fmt.Errorf("%s: the %s plugin is built into runner and serves no methods", what, plugin.Package())
	}
	if cr.Run, err = d.componentRun(cr.MonitorAddress); err != nil {
		return resource.CallResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	resp, err := c.Call(ctx, cr)
	if err != nil {
		return resource.CallResponse{}, runstate.Redacted(fmt.Sprintf("%s: %v", what, err), err, cr.Args)
	}
	return resp, nil
}

// packagePlugin returns the plugin serving the package of token: that of
// the explicit provider the program gave, else of the package's default
// provider (its step run first).
func (d *deployment) packagePlugin(ctx context.Context, token, provider, version, url string) (resource.Plugin, error) {
	if resource.Package(token) == "pulumi" {
		return nil, fmt.Errorf("the built-in pulumi package has no components")
	}
	p, err := d.providerOf(ctx, &runstate.Declared{R: &source.Registration{Type: token, Provider: provider,
		Version: version, PluginDownloadURL: url}})
	if err != nil {
		return nil, err
	}
	if p.Plugin != nil {
		return p.Plugin, nil
	}
	return p.Base, nil
}

// componentRun is the run a component's provider works in, registering
// through the monitor at addr.
func (d *deployment) componentRun(addr string) (resource.Run, error) {
	run, err := d.runRequest(addr)
	if err != nil {
		return resource.Run{}, err
	}
	return resource.Run{MonitorAddress: addr, Project: run.Project, Stack: run.Stack, Organization: run.Organization,
		Config: run.Config, ConfigSecretKeys: run.ConfigSecretKeys, DryRun: run.DryRun, Parallel: run.Parallel}, nil
}
