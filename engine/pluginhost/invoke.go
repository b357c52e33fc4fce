package pluginhost

import (
	"context"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/runnerhq/runner/engine/resource"
)

var (
	_ resource.Invoker      = (*configured)(nil)
	_ resource.Invoker      = (*unconfigured)(nil)
	_ resource.SchemaSource = (*handle)(nil)
)

// Schema returns the package's schema, from any plugin process of the
// package and version (starting one if there is none).
func (h *handle) Schema(ctx context.Context) ([]byte, error) {
	p, err := h.any(ctx, "", nil)
	if err != nil {
		return nil, err
	}
	req := &pulumirpc.GetSchemaRequest{}
	if p.param != nil { // as Pulumi's loader asks a parameterized plugin
		req.SubpackageName, req.SubpackageVersion = p.param.Name, p.param.Version
	}
	resp, err := p.rpc.GetSchema(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("the %s plugin's schema: %w", h.pkg, err)
	}
	return []byte(resp.GetSchema()), nil
}

// Invoke calls a function of the package.
func (c *configured) Invoke(ctx context.Context, req resource.InvokeRequest) (resource.InvokeResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.InvokeResponse{}, err
	}
	return p.invoke(ctx, req)
}

func (p *plugin) invoke(ctx context.Context, req resource.InvokeRequest) (resource.InvokeResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.InvokeResponse{}, err
	}
	args, err := p.send(req.Args, false, false)
	if err != nil {
		return resource.InvokeResponse{}, err
	}
	resp, err := p.rpc.Invoke(ctx, &pulumirpc.InvokeRequest{Tok: req.Token, Args: args})
	if err != nil {
		return resource.InvokeResponse{}, fmt.Errorf("the %s plugin's %s: %w", p.pkg, req.Token, p.callError(ctx, "invoke", "", err))
	}
	out := resource.InvokeResponse{}
	if out.Return, err = p.recv(resp.GetReturn(), true, req.Args); err != nil {
		return resource.InvokeResponse{}, fmt.Errorf("the %s plugin's %s returned %w", p.pkg, req.Token, err)
	}
	if !p.acceptSecrets && resource.ContainsSecret(map[string]any(req.Args)) {
		for k, v := range out.Return { // a secret argument makes every result secret (Pulumi)
			out.Return[k] = resource.Secret{Element: v}
		}
	}
	for _, f := range resp.GetFailures() {
		out.Failures = append(out.Failures, resource.CheckFailure{Property: f.GetProperty(), Reason: f.GetReason()})
	}
	return out, nil
}

// Invoke answers with an empty result: the provider's configuration is not
// known (a preview), as Pulumi answers.
func (u *unconfigured) Invoke(context.Context, resource.InvokeRequest) (resource.InvokeResponse, error) {
	return resource.InvokeResponse{Return: resource.PropertyMap{}}, nil
}
