package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// monitor is Pulumi's ResourceMonitor service. What runner does not
// implement answers Unimplemented (the embedded server); features it does
// not support answer false.
type monitor struct {
	pulumirpc.UnimplementedResourceMonitorServer
	d    Deployment
	info Info
	addr string      // the monitor's own address, which a component's provider registers through
	tf   *transforms // the program's transforms
	pkgs packages    // the packages the program registered
}

// supported are the monitor features runner implements; any other is
// answered false, so the SDKs do not use it.
var supported = map[string]bool{"secrets": true, "resourceReferences": true, "outputValues": true,
	"transforms": true, "invokeTransforms": true, "deletedWith": true, "aliasSpecs": true, "parameterization": true}

// getResourceToken is the built-in function that reads a resource's state.
const getResourceToken = "pulumi:pulumi:getResource"

// SupportsFeature says whether a feature is supported.
func (m *monitor) SupportsFeature(_ context.Context, req *pulumirpc.SupportsFeatureRequest) (*pulumirpc.SupportsFeatureResponse, error) {
	return &pulumirpc.SupportsFeatureResponse{HasSupport: supported[req.GetId()]}, nil
}

// RegisterResource registers one resource and answers, once its step has
// run, with its ID and outputs.
func (m *monitor) RegisterResource(ctx context.Context, req *pulumirpc.RegisterResourceRequest) (*pulumirpc.RegisterResourceResponse, error) {
	legacyNodeAliases(ctx, req)
	var own []callback
	if m.tf.used.Load() || len(req.GetTransforms()) > 0 {
		var err error
		if own, err = m.transformResource(ctx, req); err != nil {
			return nil, err
		}
	}
	if req.GetRemote() {
		return m.construct(ctx, req, own)
	}
	reg, err := m.registration(req)
	if err != nil {
		return nil, err
	}
	ans, err := m.d.Register(ctx, reg)
	if err != nil {
		return nil, stepStatus(err)
	}
	if m.tf.used.Load() {
		m.tf.record(reg.URN, reg.Parent, own)
	}
	obj, err := m.send(ans.Outputs, req.GetAcceptSecrets(), req.GetAcceptResources())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the outputs of %s: %v", reg.URN, err)
	}
	id := ans.ID
	if !ans.IDKnown {
		id = ""
	}
	return &pulumirpc.RegisterResourceResponse{Urn: string(reg.URN), Id: id, Object: obj}, nil
}

// stepStatus turns a step's error into the status the program receives.
func stepStatus(err error) error {
	if errors.Is(err, context.Canceled) {
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}

// send encodes outputs for the program.
func (m *monitor) send(outputs resource.PropertyMap, secrets, resources bool) (*structpb.Struct, error) {
	return wire.Marshal(outputs, wire.Options{KeepUnknowns: m.info.DryRun, KeepSecrets: secrets, KeepResources: resources})
}

// recv decodes a program's property values as Pulumi's engine does:
// secrets and resource references kept, unknowns read as
// resource.Computed.
func recv(s *structpb.Struct) (resource.PropertyMap, error) {
	if s == nil {
		return resource.PropertyMap{}, nil
	}
	return wire.Unmarshal(s, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
}

// recvOutputs decodes a remote component's inputs or a method's arguments
// as Pulumi's engine does: output values kept (resource.Output), secrets
// and unknowns upgraded to output values.
func recvOutputs(s *structpb.Struct) (resource.PropertyMap, error) {
	m, err := wire.Unmarshal(s, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true})
	if err != nil {
		return nil, err
	}
	for k, v := range m {
		m[k] = resource.UpgradeToOutputs(v)
	}
	return m, nil
}

// urnOf computes the URN of a resource registered with a parent.
func (m *monitor) urnOf(parent, typ, name string) resource.URN {
	parentType := ""
	if parent != "" {
		parentType = resource.URN(parent).QualifiedType()
	}
	return resource.NewURN(m.info.Stack, m.info.Project, parentType, typ, name)
}

// accepted refuses what runner does not support in a registration (a
// custom resource's or a remote component's) with Unimplemented, and
// returns its URN and inputs (output values kept in a remote component's,
// downgraded in others', as Pulumi's engine reads them). Its transforms
// have run.
func (m *monitor) accepted(req *pulumirpc.RegisterResourceRequest) (resource.URN, resource.PropertyMap, error) {
	switch {
	case hooked(req.GetHooks()):
		return "", nil, status.Errorf(codes.Unimplemented, "%s %q uses resource hooks (beforeCreate, afterUpdate, ...), which runner does not support yet", req.GetType(), req.GetName())
	case len(req.GetReplaceWith()) > 0 || req.GetReplacementTrigger() != nil:
		return "", nil, status.Errorf(codes.Unimplemented, "%s %q uses replaceWith or replacementTrigger, which runner does not support yet (the SDKs refuse them, as the monitor says; a transform set them)", req.GetType(), req.GetName())
	case req.GetPackageRef() != "" && req.GetRemote():
		return "", nil, status.Errorf(codes.Unimplemented, "%s %q is a component of a registered package (packageRef), which runner does not support yet", req.GetType(), req.GetName())
	case req.GetType() == "" || req.GetName() == "":
		return "", nil, status.Errorf(codes.InvalidArgument, "a resource needs a type and a name (got type %q, name %q)", req.GetType(), req.GetName())
	}
	urn := m.urnOf(req.GetParent(), req.GetType(), req.GetName())
	read := recv
	if req.GetRemote() {
		read = recvOutputs
	}
	inputs, err := read(req.GetObject())
	if err != nil {
		return "", nil, status.Errorf(codes.InvalidArgument, "the inputs of %s: %v", urn, err)
	}
	return urn, inputs, nil
}

// registration translates a RegisterResourceRequest, refusing what runner
// does not support with Unimplemented.
func (m *monitor) registration(req *pulumirpc.RegisterResourceRequest) (*source.Registration, error) {
	urn, inputs, err := m.accepted(req)
	if err != nil {
		return nil, err
	}
	timeouts, err := customTimeouts(req.GetCustomTimeouts())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the customTimeouts of %s: %v", urn, err)
	}
	aliasURNs, aliasSpecs, err := aliases(req)
	if err != nil {
		return nil, err
	}
	reg := &source.Registration{
		URN: urn, Type: req.GetType(), Name: req.GetName(), Custom: req.GetCustom(),
		Parent: resource.URN(req.GetParent()), Inputs: inputs,
		Dependencies: urns(req.GetDependencies()), Provider: req.GetProvider(),
		Version: req.GetVersion(), PluginDownloadURL: req.GetPluginDownloadURL(),
		Protect: req.GetProtect(), RetainOnDelete: req.GetRetainOnDelete(),
		DeleteBeforeReplace:    req.GetDeleteBeforeReplace(),
		DeleteBeforeReplaceSet: req.GetDeleteBeforeReplaceDefined() || req.GetDeleteBeforeReplace(),
		IgnoreChanges:          req.GetIgnoreChanges(), AdditionalSecretOutputs: req.GetAdditionalSecretOutputs(),
		ReplaceOnChanges: req.GetReplaceOnChanges(), ImportID: req.GetImportId(), Timeouts: timeouts,
		Aliases: aliasURNs, AliasSpecs: aliasSpecs, DeletedWith: resource.URN(req.GetDeletedWith()),
	}
	if err := m.resolvePackage(req.GetPackageRef(), reg); err != nil {
		return nil, err
	}
	if pd := req.GetPropertyDependencies(); len(pd) > 0 {
		reg.PropertyDependencies = make(map[string][]resource.URN, len(pd))
		for k, v := range pd {
			reg.PropertyDependencies[k] = urns(v.GetUrns())
		}
	}
	return reg, nil
}

// urns converts URN strings.
func urns(list []string) []resource.URN {
	if len(list) == 0 {
		return nil
	}
	out := make([]resource.URN, len(list))
	for i, s := range list {
		out[i] = resource.URN(s)
	}
	return out
}

// customTimeouts reads a registration's custom timeouts ("5m", "30s").
func customTimeouts(t *pulumirpc.RegisterResourceRequest_CustomTimeouts) (state.CustomTimeouts, error) {
	var out state.CustomTimeouts
	for _, f := range []struct {
		s   string
		dst *time.Duration
	}{{t.GetCreate(), &out.Create}, {t.GetUpdate(), &out.Update}, {t.GetDelete(), &out.Delete}} {
		if f.s == "" {
			continue
		}
		d, err := time.ParseDuration(f.s)
		if err != nil {
			return out, fmt.Errorf("%q is not a duration such as 5m or 30s", f.s)
		}
		*f.dst = d
	}
	return out, nil
}

// RegisterResourceOutputs records a component's or the stack's outputs.
func (m *monitor) RegisterResourceOutputs(ctx context.Context, req *pulumirpc.RegisterResourceOutputsRequest) (*emptypb.Empty, error) {
	outs, err := recv(req.GetOutputs())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the outputs of %s: %v", req.GetUrn(), err)
	}
	if err := m.d.RegisterOutputs(ctx, resource.URN(req.GetUrn()), outs); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &emptypb.Empty{}, nil
}

// SignalAndWaitForShutdown answers at once: the engine deletes what the
// program did not register once the program has exited, so the program
// must not wait for that.
func (m *monitor) SignalAndWaitForShutdown(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// ReadResource reads an existing resource: a stack reference
// (pulumi:pulumi:StackReference) or a resource's get.
func (m *monitor) ReadResource(ctx context.Context, req *pulumirpc.ReadResourceRequest) (*pulumirpc.ReadResourceResponse, error) {
	urn := m.urnOf(req.GetParent(), req.GetType(), req.GetName())
	inputs, err := recv(req.GetProperties())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the properties of %s: %v", urn, err)
	}
	rr := ReadRequest{
		URN: urn, Type: req.GetType(), Name: req.GetName(), ID: req.GetId(), Parent: resource.URN(req.GetParent()),
		Inputs: inputs, Dependencies: urns(req.GetDependencies()), Provider: req.GetProvider(),
		Version: req.GetVersion(), PluginDownloadURL: req.GetPluginDownloadURL(),
		AdditionalSecretOutputs: req.GetAdditionalSecretOutputs(),
	}
	if ref := req.GetPackageRef(); ref != "" {
		p, err := m.pkgRef(string(urn), ref)
		if err != nil {
			return nil, err
		}
		rr.Version, rr.PluginDownloadURL = p.plugin()
		rr.Parameterization = p.pz
	}
	ans, err := m.d.ReadResource(ctx, rr)
	if err != nil {
		return nil, stepStatus(err)
	}
	obj, err := m.send(ans.Outputs, req.GetAcceptSecrets(), req.GetAcceptResources())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the outputs of %s: %v", urn, err)
	}
	id := ans.ID
	if !ans.IDKnown {
		id = ""
	}
	return &pulumirpc.ReadResourceResponse{Urn: string(urn), Properties: obj, Id: id, Unknown: !ans.IDKnown}, nil
}

// Invoke calls a function.
func (m *monitor) Invoke(ctx context.Context, req *pulumirpc.ResourceInvokeRequest) (*pulumirpc.ResourceInvokeResponse, error) {
	if m.tf.used.Load() {
		if err := m.transformInvoke(ctx, req); err != nil {
			return nil, stepStatus(err)
		}
	}
	args, err := recv(req.GetArgs())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the arguments of %s: %v", req.GetTok(), err)
	}
	ir := InvokeRequest{Token: req.GetTok(), Args: args, Provider: req.GetProvider(),
		Version: req.GetVersion(), PluginDownloadURL: req.GetPluginDownloadURL()}
	if ref := req.GetPackageRef(); ref != "" {
		p, err := m.pkgRef(req.GetTok(), ref)
		if err != nil {
			return nil, err
		}
		ir.Version, ir.PluginDownloadURL = p.plugin()
		ir.Parameterization = p.pz
	}
	res, err := m.d.Invoke(ctx, ir)
	if err != nil {
		return nil, stepStatus(err)
	}
	// getResource answers with references whatever the request says, as
	// Pulumi's engine does for the SDKs that never set acceptResources.
	obj, err := m.send(res.Return, true, req.GetAcceptResources() || req.GetTok() == getResourceToken)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the result of %s: %v", req.GetTok(), err)
	}
	resp := &pulumirpc.ResourceInvokeResponse{Return: obj}
	for _, f := range res.Failures {
		resp.Failures = append(resp.Failures, &pulumirpc.CheckFailure{Property: f.Property, Reason: f.Reason})
	}
	return resp, nil
}
