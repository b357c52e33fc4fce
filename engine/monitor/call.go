package monitor

import (
	"context"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

// CallRequest asks the deployment to call a method of a multi-language
// component through its package's provider (Request.MonitorAddress is
// this monitor's; the deployment fills in the run).
type CallRequest struct {
	Request resource.CallRequest
	// Provider is the reference of the explicit provider of the method's
	// package ("": the package's default provider).
	Provider                   string
	Version, PluginDownloadURL string
}

// Call calls a method of a multi-language component (Pulumi's Call).
func (m *monitor) Call(ctx context.Context, req *pulumirpc.ResourceCallRequest) (*pulumirpc.CallResponse, error) {
	if req.GetPackageRef() != "" {
		return nil, status.Errorf(codes.Unimplemented, "%s is a method of a component of a registered package (packageRef), which runner does not support yet", req.GetTok())
	}
	args, err := recvOutputs(req.GetArgs())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the arguments of %s: %v", req.GetTok(), err)
	}
	cr := resource.CallRequest{Token: req.GetTok(), Args: args}
	cr.MonitorAddress = m.addr
	// As Pulumi's engine: an argument depends on what it was said to, and
	// on the dependencies of the output values in it.
	deps := make(map[string][]resource.URN, len(args))
	for k, v := range req.GetArgDependencies() {
		deps[k] = urns(v.GetUrns())
	}
	for k, v := range args {
		if d := resource.OutputDependencies(deps[k], v); len(d) > 0 {
			deps[k] = d
		}
	}
	if len(deps) > 0 {
		cr.ArgDependencies = deps
	}
	res, err := m.d.Call(ctx, CallRequest{Request: cr, Provider: req.GetProvider(),
		Version: req.GetVersion(), PluginDownloadURL: req.GetPluginDownloadURL()})
	if err != nil {
		return nil, stepStatus(err)
	}
	// As Pulumi's engine: secrets and references kept, whatever the
	// request says.
	obj, err := wire.Marshal(res.Return, wire.Options{KeepUnknowns: m.info.DryRun, KeepSecrets: true, KeepResources: true})
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the result of %s: %v", req.GetTok(), err)
	}
	resp := &pulumirpc.CallResponse{Return: obj}
	if len(res.ReturnDependencies) > 0 {
		resp.ReturnDependencies = make(map[string]*pulumirpc.CallResponse_ReturnDependencies, len(res.ReturnDependencies))
		for k, v := range res.ReturnDependencies {
			resp.ReturnDependencies[k] = &pulumirpc.CallResponse_ReturnDependencies{Urns: strs(v)}
		}
	}
	for _, f := range res.Failures {
		resp.Failures = append(resp.Failures, &pulumirpc.CheckFailure{Property: f.Property, Reason: f.Reason})
	}
	return resp, nil
}
