package monitor

import (
	"context"
	"maps"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/resource"
)

// ConstructRequest asks the deployment to construct a multi-language
// (remote) component through its package's provider: the provider's
// Construct registers the component and its children through this
// monitor (its address is Request.MonitorAddress). The deployment fills
// in the run (project, stack, config, dryRun).
type ConstructRequest struct {
	Request resource.ConstructRequest
	// Provider is the reference "<URN>::<ID>" of the explicit provider of
	// the component's package ("": the package's default provider).
	Provider                   string
	Version, PluginDownloadURL string
}

// construct answers the registration of a remote component, as Pulumi's
// engine does: its provider constructs it, and its URN, outputs and their
// dependencies are the answer.
func (m *monitor) construct(ctx context.Context, req *pulumirpc.RegisterResourceRequest, own []callback) (*pulumirpc.RegisterResourceResponse, error) {
	// The custom flag is not read: the YAML host sets it on a remote
	// component, and Pulumi's engine ignores it.
	_, inputs, err := m.accepted(req)
	if err != nil {
		return nil, err
	}
	cr := constructRequest(req, inputs)
	if cr.Aliases, cr.AliasSpecs, err = aliases(req); err != nil {
		return nil, err
	}
	cr.MonitorAddress = m.addr
	pkg := resource.Package(req.GetType())
	prov := req.GetProvider()
	if prov == "" {
		prov = req.GetProviders()[pkg]
	} else if cr.Providers[pkg] != prov { // the provider option counts for the component's children too
		cr.Providers = maps.Clone(cr.Providers)
		if cr.Providers == nil {
			cr.Providers = map[string]string{}
		}
		cr.Providers[pkg] = prov
	}
	ans, err := m.d.Construct(ctx, ConstructRequest{Request: cr, Provider: prov,
		Version: req.GetVersion(), PluginDownloadURL: req.GetPluginDownloadURL()})
	if err != nil {
		return nil, stepStatus(err)
	}
	if m.tf.used.Load() {
		m.tf.record(ans.URN, resource.URN(req.GetParent()), own)
	}
	obj, err := m.send(ans.State, req.GetAcceptSecrets(), req.GetAcceptResources())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the outputs of %s: %v", ans.URN, err)
	}
	resp := &pulumirpc.RegisterResourceResponse{Urn: string(ans.URN), Object: obj}
	if len(ans.StateDependencies) > 0 {
		resp.PropertyDependencies = make(map[string]*pulumirpc.RegisterResourceResponse_PropertyDependencies, len(ans.StateDependencies))
		for k, v := range ans.StateDependencies {
			resp.PropertyDependencies[k] = &pulumirpc.RegisterResourceResponse_PropertyDependencies{Urns: strs(v)}
		}
	}
	return resp, nil
}

// constructRequest reads the component and the options the program gave
// it.
func constructRequest(req *pulumirpc.RegisterResourceRequest, inputs resource.PropertyMap) resource.ConstructRequest {
	cr := resource.ConstructRequest{
		Type: req.GetType(), Name: req.GetName(), Parent: resource.URN(req.GetParent()), Inputs: inputs,
		Dependencies: urns(req.GetDependencies()), Providers: req.GetProviders(),
		AdditionalSecretOutputs: req.GetAdditionalSecretOutputs(),
		IgnoreChanges:           req.GetIgnoreChanges(), ReplaceOnChanges: req.GetReplaceOnChanges(),
		DeletedWith:   resource.URN(req.GetDeletedWith()),
		CreateTimeout: req.GetCustomTimeouts().GetCreate(), UpdateTimeout: req.GetCustomTimeouts().GetUpdate(),
		DeleteTimeout: req.GetCustomTimeouts().GetDelete(),
		Protect:       req.Protect, RetainOnDelete: req.RetainOnDelete,
	}
	if req.GetDeleteBeforeReplaceDefined() || req.GetDeleteBeforeReplace() {
		dbr := req.GetDeleteBeforeReplace()
		cr.DeleteBeforeReplace = &dbr
	}
	if pd := req.GetPropertyDependencies(); len(pd) > 0 {
		cr.InputDependencies = make(map[string][]resource.URN, len(pd))
		for k, v := range pd {
			cr.InputDependencies[k] = urns(v.GetUrns())
		}
	}
	return cr
}

// strs converts URNs for the wire.
func strs(list []resource.URN) []string {
	out := make([]string, len(list))
	for i, u := range list {
		out[i] = string(u)
	}
	return out
}
