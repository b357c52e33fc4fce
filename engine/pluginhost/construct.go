package pluginhost

import (
	"context"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

var (
	_ resource.Constructor = (*configured)(nil)
	_ resource.Constructor = (*unconfigured)(nil)
)

// Construct constructs a component of the package (Pulumi's Construct).
func (c *configured) Construct(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.ConstructResponse{}, err
	}
	return p.construct(ctx, req)
}

func (p *plugin) construct(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.ConstructResponse{}, err
	}
	if !p.acceptSecrets {
		return resource.ConstructResponse{}, fmt.Errorf("the %s plugin does not accept secrets, and a plugin that constructs components must (as Pulumi's engine requires)", p.pkg)
	}
	// As Pulumi's engine: output values only to a plugin that accepts
	// them, downgraded otherwise.
	inputs, err := wire.Marshal(req.Inputs, wire.Options{KeepUnknowns: true, KeepSecrets: true,
		KeepResources: p.acceptResources, KeepOutputValues: p.acceptOutputs})
	if err != nil {
		return resource.ConstructResponse{}, err
	}
	wreq := &pulumirpc.ConstructRequest{
		Project: req.Project, Stack: req.Stack, Organization: req.Organization,
		Config: req.Config, ConfigSecretKeys: req.ConfigSecretKeys, DryRun: req.DryRun, Parallel: req.Parallel,
		MonitorEndpoint: req.MonitorAddress, Type: req.Type, Name: req.Name, Parent: string(req.Parent),
		Inputs: inputs, Dependencies: urnStrings(req.Dependencies), Providers: req.Providers,
		Protect: req.Protect, DeleteBeforeReplace: req.DeleteBeforeReplace, RetainOnDelete: req.RetainOnDelete,
		AdditionalSecretOutputs: req.AdditionalSecretOutputs, IgnoreChanges: req.IgnoreChanges,
		ReplaceOnChanges: req.ReplaceOnChanges, DeletedWith: string(req.DeletedWith),
	}
	for _, a := range req.Aliases {
		wreq.Aliases = append(wreq.Aliases, &pulumirpc.Alias{Alias: &pulumirpc.Alias_Urn{Urn: string(a)}})
	}
	for _, a := range req.AliasSpecs {
		wreq.Aliases = append(wreq.Aliases, aliasSpec(a))
	}
	if req.CreateTimeout != "" || req.UpdateTimeout != "" || req.DeleteTimeout != "" {
		wreq.CustomTimeouts = &pulumirpc.ConstructRequest_CustomTimeouts{Create: req.CreateTimeout, Update: req.UpdateTimeout, Delete: req.DeleteTimeout}
	}
	if len(req.InputDependencies) > 0 {
		wreq.InputDependencies = make(map[string]*pulumirpc.ConstructRequest_PropertyDependencies, len(req.InputDependencies))
		for k, v := range req.InputDependencies {
			wreq.InputDependencies[k] = &pulumirpc.ConstructRequest_PropertyDependencies{Urns: urnStrings(v)}
		}
	}
	resp, err := p.rpc.Construct(ctx, wreq)
	if unimplemented(err) {
		name := p.pkg
		if v := p.shownVersion(); v != "" {
			name += " " + v
		}
		return resource.ConstructResponse{}, fmt.Errorf("the %s plugin serves no components (it does not implement Construct), so %s is not a component it can make; use a version of the plugin that provides it, or a resource it serves",
			name, req.Type)
	}
	if err != nil {
		parentType := ""
		if req.Parent != "" {
			parentType = req.Parent.QualifiedType()
		}
		return resource.ConstructResponse{}, p.callError(ctx, "construct", resource.NewURN(req.Stack, req.Project, parentType, req.Type, req.Name), err)
	}
	out := resource.ConstructResponse{URN: resource.URN(resp.GetUrn())}
	deps := map[string][]resource.URN{}
	for k, v := range resp.GetStateDependencies() {
		deps[k] = urnsOf(v.GetUrns())
	}
	if out.State, out.StateDependencies, err = answered(resp.GetState(), deps); err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("the %s plugin's construct of %s %q returned %w", p.pkg, req.Type, req.Name, err)
	}
	return out, nil
}

// answered reads a Construct's or Call's answer as Pulumi's engine does:
// output values in it add their dependencies to those of their property
// (deps, which it returns, nil when empty) and are downgraded.
func answered(s *structpb.Struct, deps map[string][]resource.URN) (resource.PropertyMap, map[string][]resource.URN, error) {
	m, err := wire.Unmarshal(s, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true})
	if err != nil {
		return nil, nil, err
	}
	for k, v := range m {
		if d := resource.OutputDependencies(deps[k], v); len(d) > 0 {
			deps[k] = d
		}
	}
	if len(deps) == 0 {
		deps = nil
	}
	return resource.DowngradeOutputsMap(m), deps, nil
}

// urnsOf converts URN strings from the wire.
func urnsOf(list []string) []resource.URN {
	if len(list) == 0 {
		return nil
	}
	out := make([]resource.URN, len(list))
	for i, u := range list {
		out[i] = resource.URN(u)
	}
	return out
}

// urnStrings converts URNs for the wire.
func urnStrings(urns []resource.URN) []string {
	out := make([]string, len(urns))
	for i, u := range urns {
		out[i] = string(u)
	}
	return out
}

// Construct cannot call the plugin: its configuration is not known (a
// preview). As Pulumi's engine does, it registers the component alone
// through the monitor, as the plugin would, and answers with its URN and
// no outputs; its children are known once the provider is configured.
func (u *unconfigured) Construct(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error) {
	conn, err := grpc.NewClient(req.MonitorAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("connecting to the resource monitor at %s: %w", req.MonitorAddress, err)
	}
	defer conn.Close()
	resp, err := pulumirpc.NewResourceMonitorClient(conn).RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
		Type: req.Type, Name: req.Name, Parent: string(req.Parent)})
	if err != nil {
		return resource.ConstructResponse{}, fmt.Errorf("registering the component %s %q while its %s provider's configuration is not known: %s", req.Type, req.Name, u.pkg, status.Convert(err).Message())
	}
	return resource.ConstructResponse{URN: resource.URN(resp.GetUrn()), State: resource.PropertyMap{}}, nil
}

// aliasSpec is an alias spec on the wire, as Pulumi's engine passes it to
// Construct.
func aliasSpec(a resource.Alias) *pulumirpc.Alias {
	spec := &pulumirpc.Alias_Spec{Name: a.Name, Type: a.Type, Stack: a.Stack, Project: a.Project}
	switch {
	case a.NoParent:
		spec.Parent = &pulumirpc.Alias_Spec_NoParent{NoParent: true}
	case a.Parent != "":
		spec.Parent = &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: string(a.Parent)}
	}
	return &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: spec}}
}
