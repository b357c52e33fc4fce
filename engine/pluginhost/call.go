package pluginhost

import (
	"context"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

var (
	_ resource.Caller = (*configured)(nil)
	_ resource.Caller = (*unconfigured)(nil)
)

// Call calls a method of one of the package's components (Pulumi's Call).
func (c *configured) Call(ctx context.Context, req resource.CallRequest) (resource.CallResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.CallResponse{}, err
	}
	return p.call(ctx, req)
}

func (p *plugin) call(ctx context.Context, req resource.CallRequest) (resource.CallResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.CallResponse{}, err
	}
	if !p.acceptSecrets {
		return resource.CallResponse{}, fmt.Errorf("the %s plugin does not accept secrets, and a plugin whose components have methods must (as Pulumi's engine requires)", p.pkg)
	}
	// As Pulumi's engine: a method gets its __self__ and other resource
	// arguments as references whatever the plugin's Configure answered,
	// output values only when it accepts them (downgraded otherwise).
	args, err := wire.Marshal(req.Args, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true,
		KeepOutputValues: p.acceptOutputs})
	if err != nil {
		return resource.CallResponse{}, err
	}
	wreq := &pulumirpc.CallRequest{Tok: req.Token, Args: args, Project: req.Project, Stack: req.Stack,
		Organization: req.Organization, Config: req.Config, ConfigSecretKeys: req.ConfigSecretKeys,
		DryRun: req.DryRun, Parallel: req.Parallel, MonitorEndpoint: req.MonitorAddress}
	if len(req.ArgDependencies) > 0 {
		wreq.ArgDependencies = make(map[string]*pulumirpc.CallRequest_ArgumentDependencies, len(req.ArgDependencies))
		for k, v := range req.ArgDependencies {
			wreq.ArgDependencies[k] = &pulumirpc.CallRequest_ArgumentDependencies{Urns: urnStrings(v)}
		}
	}
	resp, err := p.rpc.Call(ctx, wreq)
	if unimplemented(err) {
		return resource.CallResponse{}, fmt.Errorf("the %s plugin serves no methods (it does not implement Call), so it has no %s", p.pkg, req.Token)
	}
	if err != nil {
		return resource.CallResponse{}, p.callError(ctx, "call", resource.URN(req.Token), err)
	}
	out := resource.CallResponse{}
	deps := map[string][]resource.URN{}
	for k, v := range resp.GetReturnDependencies() {
		deps[k] = urnsOf(v.GetUrns())
	}
	if out.Return, out.ReturnDependencies, err = answered(resp.GetReturn(), deps); err != nil {
		return resource.CallResponse{}, fmt.Errorf("the %s plugin's %s returned %w", p.pkg, req.Token, err)
	}
	for _, f := range resp.GetFailures() {
		out.Failures = append(out.Failures, resource.CheckFailure{Property: f.GetProperty(), Reason: f.GetReason()})
	}
	return out, nil
}

// Call answers with an empty result: the provider's configuration is not
// known (a preview), as for Invoke.
func (u *unconfigured) Call(context.Context, resource.CallRequest) (resource.CallResponse, error) {
	return resource.CallResponse{Return: resource.PropertyMap{}}, nil
}
