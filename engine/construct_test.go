package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// pairConstruct is a component provider's Construct: through the monitor
// at the request's address it registers the component and one custom
// child under it, and answers with the component's URN and the child's
// "n" as its output "n" (a dependency on the child).
func pairConstruct(seen *[]resource.ConstructRequest, mu *sync.Mutex) func(context.Context, resource.ConstructRequest) (resource.ConstructResponse, error) {
	return func(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error) {
		mu.Lock()
		*seen = append(*seen, req)
		mu.Unlock()
		conn, err := grpc.NewClient(req.MonitorAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return resource.ConstructResponse{}, err
		}
		defer conn.Close()
		c := &client{mon: pulumirpc.NewResourceMonitorClient(conn)}
		comp, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: req.Type, Name: req.Name, Parent: string(req.Parent)}, nil)
		if err != nil {
			return resource.ConstructResponse{}, err
		}
		child, _, outs, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: req.Name + "-child", Parent: comp, Custom: true},
			resource.PropertyMap{"n": req.Inputs["n"]})
		if err != nil {
			return resource.ConstructResponse{}, err
		}
		return resource.ConstructResponse{URN: resource.URN(comp), State: resource.PropertyMap{"n": outs["n"]},
			StateDependencies: map[string][]resource.URN{"n": {resource.URN(child)}}}, nil
	}
}

// TestHostedRemoteComponent drives the monitor as an SDK does for a
// remote component: the package's provider gets Construct with the
// monitor's address, the run (config with its secret keys, dryRun in a
// preview), the inputs (a secret kept secret) and options; the
// component and its child are recorded under the program's root; the
// program gets the URN, outputs and their dependencies; a method of the
// component (Call) gets the run and its arguments, a secret result kept
// secret.
func TestHostedRemoteComponent(t *testing.T) {
	e := newHostedEnv(t)
	var mu sync.Mutex
	var seen []resource.ConstructRequest
	e.plugin.OnConstruct = pairConstruct(&seen, &mu)
	var got *pulumirpc.RegisterResourceResponse
	var called *pulumirpc.CallResponse
	var calls []resource.CallRequest
	e.plugin.OnCall = func(_ context.Context, req resource.CallRequest) (resource.CallResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, req)
		return resource.CallResponse{Return: resource.PropertyMap{"y": req.Args["x"]}}, nil
	}
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		protect := false
		got, err = c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{Type: "test:index:Pair", Name: "pair", Parent: root,
			Remote: true, Object: mustStruct(t, resource.PropertyMap{"n": resource.Secret{Element: 2.0}}), AcceptSecrets: true,
			Protect: &protect, IgnoreChanges: []string{"x"}, Dependencies: []string{root}})
		if err != nil || e.plugin.OnCall == nil {
			return err
		}
		called, err = c.mon.Call(ctx, &pulumirpc.ResourceCallRequest{Tok: "test:index:Pair/m",
			Args: mustStruct(t, resource.PropertyMap{"__self__": got.GetUrn(), "x": resource.Secret{Element: "s"}})})
		return err
	})
	if _, err := e.hosted(engine.Preview, prog); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || !seen[0].DryRun || e.find("pair") != nil {
		t.Fatalf("the preview's Construct: %+v; recorded %v", seen, e.find("pair"))
	}
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	req := seen[1]
	if req.DryRun || req.MonitorAddress == "" || req.Project != project || req.Stack != stack || req.Config["proj:pw"] != "hush" ||
		strings.Join(req.ConfigSecretKeys, ",") != "proj:pw" || req.Protect == nil || *req.Protect || req.IgnoreChanges[0] != "x" {
		t.Errorf("the up's Construct request: %+v", req)
	}
	if o, ok := req.Inputs["n"].(resource.Output); !ok || !o.Secret || !o.Known || o.Element != 2.0 {
		t.Errorf("the secret input reached Construct as %#v, want a secret output value (as Pulumi's engine upgrades it)", req.Inputs["n"])
	}
	pair := resource.NewURN(stack, project, "", "test:index:Pair", "pair")
	if deps := got.GetPropertyDependencies()["n"].GetUrns(); got.GetUrn() != string(pair) || len(deps) != 1 || !strings.HasSuffix(deps[0], "::pair-child") {
		t.Errorf("the program's answer: %v", got)
	}
	if f := got.GetObject().GetFields()["n"]; f.GetStructValue() == nil {
		t.Errorf("the component's output n is not secret for the program: %v", f)
	}
	comp, child := e.find("pair"), e.find("pair-child")
	if comp == nil || comp.Custom || comp.Parent != resource.RootURN(project, stack) || child == nil || child.Parent != pair {
		t.Errorf("recorded: component %+v, child %+v", comp, child)
	}
	if len(calls) != 2 || !calls[0].DryRun || calls[1].DryRun || calls[1].MonitorAddress == "" || calls[1].Args["__self__"] != string(pair) {
		t.Errorf("the method's Call requests: %+v", calls)
	}
	if f := called.GetReturn().GetFields()["y"]; f.GetStructValue() == nil {
		t.Errorf("the method's secret result is not secret for the program: %v", f)
	}
	e.plugin.OnConstruct = nil
	_, err := e.hosted(engine.Up, prog)
	if err == nil || !strings.Contains(err.Error(), `constructing the component test:index:Pair "pair": plugintest: the test plugin serves no components`) {
		t.Errorf("a plugin serving no components: %v", err)
	}
}
