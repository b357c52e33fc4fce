package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"
)

// typePair is the package's component: two Things, <name>-a and <name>-b,
// whose value inputs are the Pair's value with "-a" and "-b" appended.
const typePair = "testprov:index:Pair"

// Construct constructs a Pair through the engine's resource monitor, as a
// multi-language component provider does: it registers the component with
// the options the program gave it, its two children parented to it (on
// the program's testprov provider, if it gave one), the component's
// outputs, and answers with the component's URN and outputs.
// TESTPROV_NO_CONSTRUCT=1 answers Unimplemented, as a provider without
// components does; the value fail-construct fails after the first child.
func (s *server) Construct(ctx context.Context, req *pulumirpc.ConstructRequest) (*pulumirpc.ConstructResponse, error) {
	if os.Getenv("TESTPROV_NO_CONSTRUCT") == "1" || req.GetType() != typePair {
		return s.ResourceProviderServer.Construct(ctx, req) // Unimplemented
	}
	conn, err := grpc.NewClient(req.GetMonitorEndpoint(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connecting to the resource monitor at %s: %w", req.GetMonitorEndpoint(), err)
	}
	defer conn.Close()
	mon := pulumirpc.NewResourceMonitorClient(conn)
	comp, err := mon.RegisterResource(ctx, componentRequest(req))
	if err != nil {
		return nil, fmt.Errorf("registering %s %q: %w", typePair, req.GetName(), err)
	}
	value := req.GetInputs().GetFields()["value"]
	state := map[string]*structpb.Value{}
	var deps []string
	for _, suffix := range []string{"a", "b"} {
		child, err := mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
			Type: typeThing, Name: req.GetName() + "-" + suffix, Parent: comp.GetUrn(), Custom: true,
			Object:   childInputs(req, suffixed(value, "-"+suffix)),
			Provider: req.GetProviders()["testprov"], AcceptSecrets: true, SupportsResultReporting: true,
			Dependencies: req.GetDependencies(), PropertyDependencies: childDeps(req),
		})
		if err != nil {
			return nil, fmt.Errorf("registering the child %s of %s: %w", suffix, comp.GetUrn(), err)
		}
		if value.GetStringValue() == "fail-construct" {
			return nil, fmt.Errorf("testprov: Pair %q failing on purpose after its child %s (value fail-construct)", req.GetName(), suffix)
		}
		state[suffix] = child.GetObject().GetFields()["value"]
		if state[suffix] == nil {
			state[suffix] = structpb.NewNullValue()
		}
		deps = append(deps, child.GetUrn())
	}
	outs := &structpb.Struct{Fields: state}
	if _, err := mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{Urn: comp.GetUrn(), Outputs: outs}); err != nil {
		return nil, fmt.Errorf("registering the outputs of %s: %w", comp.GetUrn(), err)
	}
	sd := map[string]*pulumirpc.ConstructResponse_PropertyDependencies{}
	for i, k := range []string{"a", "b"} {
		sd[k] = &pulumirpc.ConstructResponse_PropertyDependencies{Urns: []string{deps[i]}}
	}
	return &pulumirpc.ConstructResponse{Urn: comp.GetUrn(), State: outs, StateDependencies: sd}, nil
}

// componentRequest registers the component itself with the options the
// program gave it.
func componentRequest(req *pulumirpc.ConstructRequest) *pulumirpc.RegisterResourceRequest {
	rr := &pulumirpc.RegisterResourceRequest{
		Type: typePair, Name: req.GetName(), Parent: req.GetParent(), Custom: false,
		Dependencies: req.GetDependencies(), Protect: req.Protect, RetainOnDelete: req.RetainOnDelete,
		Providers: req.GetProviders(), AdditionalSecretOutputs: req.GetAdditionalSecretOutputs(),
		IgnoreChanges: req.GetIgnoreChanges(), ReplaceOnChanges: req.GetReplaceOnChanges(),
		DeletedWith: req.GetDeletedWith(), AcceptSecrets: true,
	}
	for _, a := range req.GetAliases() {
		if u := a.GetUrn(); u != "" {
			rr.AliasURNs = append(rr.AliasURNs, u)
		}
	}
	return rr
}

// childInputs are a child's inputs: its value, and the Pair's sleepMs.
func childInputs(req *pulumirpc.ConstructRequest, value *structpb.Value) *structpb.Struct {
	in := map[string]*structpb.Value{"value": value}
	if ms := req.GetInputs().GetFields()["sleepMs"]; ms != nil {
		in["sleepMs"] = ms
	}
	return &structpb.Struct{Fields: in}
}

// childDeps gives a child the dependencies of the Pair's value input.
func childDeps(req *pulumirpc.ConstructRequest) map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies {
	d := req.GetInputDependencies()["value"]
	if d == nil {
		return nil
	}
	return map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{"value": {Urns: d.GetUrns()}}
}

// suffixed appends suffix to a string value, keeping it secret when it is
// (a secret's value is its "value" field) and leaving an unknown or a
// missing value as it is.
func suffixed(v *structpb.Value, suffix string) *structpb.Value {
	switch {
	case v == nil:
		return structpb.NewStringValue(suffix[1:])
	case v.GetStringValue() != "" && v.GetStringValue() != unknownSentinel:
		return structpb.NewStringValue(v.GetStringValue() + suffix)
	case v.GetStructValue() != nil:
		f := v.GetStructValue().GetFields()
		if inner := f["value"]; inner != nil && f[sigKey] != nil {
			return &structpb.Value{Kind: &structpb.Value_StructValue{StructValue: &structpb.Struct{
				Fields: map[string]*structpb.Value{sigKey: f[sigKey], "value": suffixed(inner, suffix)}}}}
		}
	}
	return v
}

// The wire's unknown value and the key of a special value's signature.
const (
	unknownSentinel = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
	sigKey          = "4dabf18193072939515e22adb298388d"
)

// methodGreet is the Pair's method: it answers {message: "<greeting> from
// <the Pair's name>"}.
const methodGreet = typePair + "/greet"

// Call calls the Pair's method greet (__self__ the Pair: a resource
// reference, or its URN where the engine takes no references).
// TESTPROV_NO_CONSTRUCT=1 answers Unimplemented.
func (s *server) Call(ctx context.Context, req *pulumirpc.CallRequest) (*pulumirpc.CallResponse, error) {
	if os.Getenv("TESTPROV_NO_CONSTRUCT") == "1" || req.GetTok() != methodGreet {
		return s.ResourceProviderServer.Call(ctx, req)
	}
	f := req.GetArgs().GetFields()
	self := f["__self__"].GetStringValue()
	if ref := f["__self__"].GetStructValue(); ref != nil {
		self = ref.GetFields()["urn"].GetStringValue()
	}
	if i := strings.LastIndex(self, "::"); i >= 0 {
		self = self[i+2:]
	}
	if self == "" {
		return nil, fmt.Errorf("%s: no __self__ argument", methodGreet)
	}
	msg := structpb.NewStringValue(f["greeting"].GetStringValue() + " from " + self)
	return &pulumirpc.CallResponse{Return: &structpb.Struct{Fields: map[string]*structpb.Value{"message": msg}}}, nil
}
