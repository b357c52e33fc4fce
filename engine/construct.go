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
	if resource.Package(cr.Type) == "pulumi" {
		return resource.ConstructResponse{}, fmt.Errorf("%s: the built-in pulumi package has no components", what)
	}
	p, err := d.providerOf(ctx, &runstate.Declared{R: &source.Registration{Type: cr.Type, Provider: req.Provider,
		Version: req.Version, PluginDownloadURL: req.PluginDownloadURL}})
	if err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	plugin := p.Plugin
	if plugin == nil {
		plugin = p.Base
	}
	c, ok := plugin.(resource.Constructor)
	if !ok {
		return resource.ConstructResponse{}, fmt.Errorf("%s: the %s plugin is built into runner and serves no components", what, p.Pkg)
	}
	run, err := d.runRequest(cr.MonitorAddress)
	if err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	cr.Project, cr.Stack, cr.Organization = run.Project, run.Stack, run.Organization
	cr.Config, cr.ConfigSecretKeys = run.Config, run.ConfigSecretKeys
	cr.DryRun, cr.Parallel = run.DryRun, run.Parallel
	resp, err := c.Construct(ctx, cr)
	if err != nil {
		return resource.ConstructResponse{}, runstate.Redacted(fmt.Sprintf("%s: %v", what, err), err, cr.Inputs)
	}
	return resp, nil
}
