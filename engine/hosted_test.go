package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// hostedFunc is a hosted program written in Go against the monitor's gRPC
// services, as an SDK drives them.
type hostedFunc func(ctx context.Context, c *client) error

func (f hostedFunc) Run(ctx context.Context, req source.RunRequest) error {
	conn, err := grpc.NewClient(req.MonitorAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	return f(ctx, &client{
		mon: pulumirpc.NewResourceMonitorClient(conn), eng: pulumirpc.NewEngineClient(conn),
		health: healthpb.NewHealthClient(conn), req: req,
	})
}

// client is what a hosted test program talks to.
type client struct {
	mon    pulumirpc.ResourceMonitorClient
	eng    pulumirpc.EngineClient
	health healthpb.HealthClient
	req    source.RunRequest
}

func (c *client) root() string { return string(resource.RootURN(c.req.Project, c.req.Stack)) }

// register registers a resource and returns its URN, ID and outputs.
func (c *client) register(ctx context.Context, r *pulumirpc.RegisterResourceRequest, in resource.PropertyMap) (string, string, resource.PropertyMap, error) {
	obj, err := wire.Marshal(in, wire.Options{KeepUnknowns: true, KeepSecrets: true})
	if err != nil {
		return "", "", nil, err
	}
	r.Object, r.AcceptSecrets = obj, true
	resp, err := c.mon.RegisterResource(ctx, r)
	if err != nil {
		return "", "", nil, err
	}
	outs, err := wire.Unmarshal(resp.GetObject(), wire.Options{KeepUnknowns: true, KeepSecrets: true})
	return resp.GetUrn(), resp.GetId(), outs, err
}

func mustStruct(t *testing.T, m resource.PropertyMap) *structpb.Struct {
	s, err := wire.Marshal(m, wire.Options{KeepSecrets: true, KeepUnknowns: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sdkChain is the contract sequence: the SDK's feature probes and health
// check, the root stack, a resource with a secret input, a second one
// depending on it, a stack reference, getResource, the stack outputs, a
// log, and the shutdown signal.
func sdkChain(t *testing.T, second bool) hostedFunc {
	return func(ctx context.Context, c *client) error {
		for id, want := range map[string]bool{"secrets": true, "resourceReferences": true, "outputValues": true, "transforms": true, "resourceHooks": false,
			"deletedWith": true, "aliasSpecs": true, "replaceWith": false, "replacementTrigger": false} {
			resp, err := c.mon.SupportsFeature(ctx, &pulumirpc.SupportsFeatureRequest{Id: id})
			if err != nil || resp.GetHasSupport() != want {
				return fmt.Errorf("SupportsFeature(%s) = %v, %v", id, resp.GetHasSupport(), err)
			}
		}
		if h, err := c.health.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return fmt.Errorf("health: %v, %v", h, err)
		}
		if _, err := c.mon.Call(ctx, &pulumirpc.ResourceCallRequest{Tok: "x:y:z"}); err == nil || !strings.Contains(err.Error(), `calling x:y:z: no resource plugin serves package "x"`) {
			return fmt.Errorf("Call of a package no plugin serves: %v", err)
		}
		rootURN, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil || rootURN != c.root() {
			return fmt.Errorf("root: %s, %v", rootURN, err)
		}
		if _, err := c.eng.SetRootResource(ctx, &pulumirpc.SetRootResourceRequest{Urn: rootURN}); err != nil {
			return err
		}
		aURN, aID, aOut, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "a", Parent: rootURN, Custom: true},
			resource.PropertyMap{"n": 1.0, "pw": resource.Secret{Element: "hush"}})
		if err != nil {
			return fmt.Errorf("a: %w", err)
		}
		if _, ok := aOut["pw"].(resource.Secret); !ok {
			return fmt.Errorf("a's secret output came back as %#v", aOut["pw"])
		}
		if c.req.DryRun != (aID == "") {
			return fmt.Errorf("a's ID %q in a dry run %v", aID, c.req.DryRun)
		}
		if second {
			_, _, _, err = c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "b", Parent: rootURN, Custom: true,
				Dependencies:         []string{aURN},
				PropertyDependencies: map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{"n": {Urns: []string{aURN}}},
			}, resource.PropertyMap{"n": aOut["n"], "from": aOut["result"]})
			if err != nil {
				return fmt.Errorf("b: %w", err)
			}
		}
		ref, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{Type: "pulumi:pulumi:StackReference", Name: "up/dev", Parent: rootURN,
			Id: "up/dev", Properties: mustStruct(t, resource.PropertyMap{"name": "up/dev"}), AcceptSecrets: true})
		if err != nil {
			return fmt.Errorf("stack reference: %w", err)
		}
		refOut, _ := wire.Unmarshal(ref.GetProperties(), wire.Options{KeepSecrets: true})
		outs, _ := refOut["outputs"].(map[string]any)
		if _, ok := outs["token"].(resource.Secret); !ok || outs["host"] != "h1" {
			return fmt.Errorf("stack reference outputs %v", refOut)
		}
		got, err := c.mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{Tok: "pulumi:pulumi:getResource", Args: mustStruct(t, resource.PropertyMap{"urn": aURN})})
		if err != nil || got.GetReturn().GetFields()["urn"].GetStringValue() != aURN {
			return fmt.Errorf("getResource: %v, %v", got, err)
		}
		if _, err := c.eng.Log(ctx, &pulumirpc.LogRequest{Severity: pulumirpc.LogSeverity_INFO, Message: "hello hush"}); err != nil {
			return err
		}
		if _, err := c.mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{Urn: rootURN,
			Outputs: mustStruct(t, resource.PropertyMap{"n": aOut["n"], "token": resource.Secret{Element: "t0k"}})}); err != nil {
			return err
		}
		_, err = c.mon.SignalAndWaitForShutdown(ctx, &emptypb.Empty{})
		return err
	}
}

// newHostedEnv is a provider env with a deployed upstream project "up".
func newHostedEnv(t *testing.T) *env {
	e, _ := newProviderEnv(t)
	e.opts.Config["proj:pw"] = resource.Secret{Element: "hush"}
	e.backend.Put("up", stack, &state.Snapshot{Resources: []*state.Resource{{
		URN: resource.RootURN("up", stack), Type: resource.RootStackType,
		Outputs: resource.PropertyMap{"host": "h1", "token": resource.Secret{Element: "s3cr3t"}},
	}}})
	return e
}

func (e *env) hosted(op func(context.Context, engine.Options, engine.Program) (*engine.Result, error), h source.Hosted) (*engine.Result, error) {
	opts := e.opts
	opts.Hosted = h
	return op(context.Background(), opts, nil)
}

// TestHostedContract drives the monitor's services as the SDKs do, through
// preview, up, a no-op up, a failed program and a clean one.
func TestHostedContract(t *testing.T) {
	e := newHostedEnv(t)
	res, err := e.hosted(engine.Preview, sdkChain(t, true))
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	if res.Changes[engine.OpCreate] != 3 || e.plugin.Count("Create") != 0 {
		t.Errorf("preview changes %v, %d creates", res.Changes, e.plugin.Count("Create"))
	}
	if res, err = e.hosted(engine.Up, sdkChain(t, true)); err != nil {
		t.Fatalf("up: %v", err)
	}
	b := e.find("b")
	if b == nil || len(b.Dependencies) != 1 || b.Dependencies[0] != urn("a") || len(b.PropertyDependencies["n"]) != 1 {
		t.Fatalf("b recorded as %+v", b)
	}
	if _, ok := e.find("a").Inputs["pw"].(resource.Secret); !ok {
		t.Error("a's secret input is not secret in the state")
	}
	if _, ok := res.Outputs["token"].(resource.Secret); !ok || res.Outputs["n"] != 1.0 {
		t.Errorf("stack outputs %v", res.Outputs)
	}
	for _, ev := range e.events {
		if strings.Contains(ev.Message, "hush") {
			t.Errorf("event leaks a secret: %q", ev.Message)
		}
	}
	// The stack reference is recorded as Pulumi records it: a read of the
	// built-in pulumi package, external.
	ref := e.find("up/dev")
	if ref == nil || !ref.External || ref.ID != "up/dev" || !strings.HasPrefix(ref.Provider, "urn:pulumi:dev::proj::pulumi:providers:pulumi::default::") {
		t.Errorf("the stack reference is recorded as %+v", ref)
	} else if outs, _ := ref.Outputs["outputs"].(map[string]any); outs["host"] != "h1" {
		t.Errorf("the stack reference's recorded outputs: %v", ref.Outputs)
	}
	if res, err = e.hosted(engine.Up, sdkChain(t, true)); err != nil || res.Changes[engine.OpSame] != 4 || len(res.Steps) != 0 {
		t.Fatalf("no-op up: %v, %v, %v", err, res.Changes, res.Steps)
	}
	failing := hostedFunc(func(ctx context.Context, c *client) error {
		if err := sdkChain(t, false)(ctx, c); err != nil {
			return err
		}
		return errors.New("the program failed")
	})
	if _, err = e.hosted(engine.Up, failing); err == nil || !strings.Contains(err.Error(), "the program failed") {
		t.Fatalf("failing program: %v", err)
	}
	if e.find("b") == nil || e.plugin.Count("Delete") != 0 {
		t.Fatal("a failed program deleted b")
	}
	if _, err = e.hosted(engine.Up, sdkChain(t, false)); err != nil {
		t.Fatal(err)
	}
	if e.find("b") != nil || e.plugin.Count("Delete") != 1 {
		t.Fatal("b was not deleted once the program ran cleanly without it")
	}
}

// TestHostedStackReferenceNotUpstream checks a stack reference to a
// project that is not upstream names the dependsOn to add, and one to a
// stack that does not exist fails the preview.
func TestHostedStackReferenceNotUpstream(t *testing.T) {
	read := func(name string) hostedFunc {
		return func(ctx context.Context, c *client) error {
			_, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{Type: "pulumi:pulumi:StackReference", Name: name,
				Properties: mustStruct(t, resource.PropertyMap{"name": name})})
			return err
		}
	}
	e := newHostedEnv(t)
	e.opts.Upstream = map[string]bool{"other": true, "up": false}
	if _, err := e.hosted(engine.Preview, read("organization/up/dev")); err == nil || !strings.Contains(err.Error(), "add up to the dependsOn of proj") {
		t.Errorf("not upstream: %v", err)
	}
	if _, err := e.hosted(engine.Preview, read("other/dev")); err == nil || !strings.Contains(err.Error(), "has no stack dev") {
		t.Errorf("missing stack: %v", err)
	}
}
