package main

import (
	"context"
	"fmt"
	"os"
	"slices"
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
// outputs (and valueKind: how its value came, as greet's greetingKind),
// and answers with the component's URN and outputs.
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
	_, kind, _ := unwrap(value)
	state["valueKind"] = structpb.NewStringValue(kind)
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
// (a secret's or an output value's value is its "value" field, their
// other fields kept) and leaving an unknown or a missing value as it is.
func suffixed(v *structpb.Value, suffix string) *structpb.Value {
	switch {
	case v == nil:
		return structpb.NewStringValue(suffix[1:])
	case v.GetStringValue() != "" && v.GetStringValue() != unknownSentinel:
		return structpb.NewStringValue(v.GetStringValue() + suffix)
	case v.GetStructValue() != nil:
		f := v.GetStructValue().GetFields()
		if inner := f["value"]; inner != nil && f[sigKey] != nil {
			out := make(map[string]*structpb.Value, len(f))
			for k, e := range f {
				out[k] = e
			}
			out["value"] = suffixed(inner, suffix)
			return structpb.NewStructValue(&structpb.Struct{Fields: out})
		}
	}
	return v
}

// The wire's unknown value, the key of a special value's signature, and
// the signatures of secrets and output values.
const (
	unknownSentinel = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
	sigKey          = "4dabf18193072939515e22adb298388d"
	secretSig       = "1b47061264138c4ac30d75fd1eb44270"
	outputValueSig  = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
)

// methodGreet is the Pair's method: it answers {message: "<greeting> from
// <the Pair's name>"}, and how its arguments came: selfKind ("reference",
// or "urn" where the engine sends no references), greetingKind ("output"
// for an output value, "secret", "plain" or "unknown") and greetingDeps
// (the dependencies of the greeting: its argument dependencies and, for an
// output value, its own).
const methodGreet = typePair + "/greet"

// Call calls the Pair's method greet. TESTPROV_NO_CONSTRUCT=1 answers
// Unimplemented.
func (s *server) Call(ctx context.Context, req *pulumirpc.CallRequest) (*pulumirpc.CallResponse, error) {
	if os.Getenv("TESTPROV_NO_CONSTRUCT") == "1" || req.GetTok() != methodGreet {
		return s.ResourceProviderServer.Call(ctx, req)
	}
	f := req.GetArgs().GetFields()
	self, selfKind := f["__self__"].GetStringValue(), "urn"
	if ref := f["__self__"].GetStructValue(); ref != nil {
		self, selfKind = ref.GetFields()["urn"].GetStringValue(), "reference"
	}
	if i := strings.LastIndex(self, "::"); i >= 0 {
		self = self[i+2:]
	}
	if self == "" {
		return nil, fmt.Errorf("%s: no __self__ argument", methodGreet)
	}
	greeting, kind, deps := unwrap(f["greeting"])
	deps = append(deps, req.GetArgDependencies()["greeting"].GetUrns()...)
	slices.Sort(deps)
	depList := make([]*structpb.Value, 0, len(deps))
	for _, d := range slices.Compact(deps) {
		depList = append(depList, structpb.NewStringValue(d))
	}
	return &pulumirpc.CallResponse{Return: &structpb.Struct{Fields: map[string]*structpb.Value{
		"message":      structpb.NewStringValue(greeting + " from " + self),
		"selfKind":     structpb.NewStringValue(selfKind),
		"greetingKind": structpb.NewStringValue(kind),
		"greetingDeps": structpb.NewListValue(&structpb.ListValue{Values: depList}),
	}}}, nil
}

// unwrap reads a string argument: its value, how it came (output, secret,
// plain or unknown) and an output value's dependencies.
func unwrap(v *structpb.Value) (s, kind string, deps []string) {
	f := v.GetStructValue().GetFields()
	switch f[sigKey].GetStringValue() {
	case outputValueSig:
		for _, d := range f["dependencies"].GetListValue().GetValues() {
			deps = append(deps, d.GetStringValue())
		}
		if f["value"] == nil {
			return "", "unknown", deps
		}
		s, _, _ = unwrap(f["value"])
		return s, "output", deps
	case secretSig:
		s, _, _ = unwrap(f["value"])
		return s, "secret", nil
	}
	if v.GetStringValue() == unknownSentinel {
		return "", "unknown", nil
	}
	return v.GetStringValue(), "plain", nil
}
