package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

// refs marshals m as an SDK does when the monitor takes resource
// references.
func refs(t *testing.T, m resource.PropertyMap) *pulumirpc.RegisterResourceRequest {
	obj, err := wire.Marshal(m, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
	if err != nil {
		t.Fatal(err)
	}
	return &pulumirpc.RegisterResourceRequest{Object: obj, AcceptSecrets: true}
}

// refProgram registers a custom resource a, a component c, b with
// references to both (answered with references), and d with the same
// (answered, as to an SDK that takes none, with a's ID and c's URN); it
// calls a method with c as __self__ and reports what the program got.
func refProgram(t *testing.T, got map[string]any, mu *sync.Mutex) hostedFunc {
	return func(ctx context.Context, c *client) error {
		resp, err := c.mon.SupportsFeature(ctx, &pulumirpc.SupportsFeatureRequest{Id: "resourceReferences"})
		if err != nil || !resp.GetHasSupport() {
			return fmt.Errorf("SupportsFeature(resourceReferences) = %v, %v", resp.GetHasSupport(), err)
		}
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		a, aID, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "a", Parent: root, Custom: true}, resource.PropertyMap{"n": 1.0})
		if err != nil {
			return err
		}
		comp, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "test:index:Comp", Name: "c", Parent: root}, nil)
		if err != nil {
			return err
		}
		var id any = aID
		if aID == "" {
			id = resource.Computed{}
		}
		in := resource.PropertyMap{"a": resource.ResourceReference{URN: resource.URN(a), ID: id, PackageVersion: "1.2.3"},
			"c": resource.ResourceReference{URN: resource.URN(comp)}}
		for _, name := range []string{"b", "d"} {
			req := refs(t, in)
			req.Type, req.Name, req.Parent, req.Custom, req.Dependencies = typ, name, root, true, []string{a, comp}
			req.AcceptResources = name == "b"
			r, err := c.mon.RegisterResource(ctx, req)
			if err != nil {
				return err
			}
			outs, err := wire.Unmarshal(r.GetObject(), wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
			if err != nil {
				return err
			}
			mu.Lock()
			got[name+".a"], got[name+".c"] = outs["a"], outs["c"]
			mu.Unlock()
		}
		self := refs(t, resource.PropertyMap{"__self__": resource.ResourceReference{URN: resource.URN(comp)}}).Object
		called, err := c.mon.Call(ctx, &pulumirpc.ResourceCallRequest{Tok: "test:index:Comp/m", Args: self})
		if err != nil {
			return err
		}
		ret, err := wire.Unmarshal(called.GetReturn(), wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
		mu.Lock()
		got["self"] = ret["self"]
		mu.Unlock()
		return err
	}
}

// TestHostedResourceReferences drives the monitor as an SDK does once it
// answers resourceReferences: references in a registration's inputs reach
// the plugin and the state as references (an unknown ID in a preview);
// the program gets them back as references when its request accepts
// them, else as the custom resource's ID and the component's URN; a
// method gets its __self__ as a reference and answers with one; a second
// up is a no-op (references compare as Pulumi compares them).
func TestHostedResourceReferences(t *testing.T) {
	e := newHostedEnv(t)
	var mu sync.Mutex
	e.plugin.OnCall = func(_ context.Context, req resource.CallRequest) (resource.CallResponse, error) {
		return resource.CallResponse{Return: resource.PropertyMap{"self": req.Args["__self__"]}}, nil
	}
	aURN := urn("a")
	compURN := resource.NewURN(stack, project, "", "test:index:Comp", "c")
	got := map[string]any{}
	if _, err := e.hosted(engine.Preview, refProgram(t, got, &mu)); err != nil {
		t.Fatal(err)
	}
	if r, ok := got["b.a"].(resource.ResourceReference); !ok || r.URN != aURN || r.ID != (resource.Computed{}) {
		t.Errorf("the preview answered b's reference to a as %#v, want one with an unknown ID", got["b.a"])
	}
	if _, err := e.hosted(engine.Up, refProgram(t, got, &mu)); err != nil {
		t.Fatal(err)
	}
	a := e.find("a")
	wantA := resource.ResourceReference{URN: aURN, ID: a.ID, PackageVersion: "1.2.3"}
	wantC := resource.ResourceReference{URN: compURN}
	for _, name := range []string{"b", "d"} {
		r := e.find(name)
		if !resource.DeepEqual(r.Inputs["a"], wantA) || !resource.DeepEqual(r.Inputs["c"], wantC) {
			t.Errorf("%s's inputs are recorded as %v, want the references %v and %v", name, r.Inputs, wantA, wantC)
		}
	}
	if !resource.DeepEqual(got["b.a"], wantA) || !resource.DeepEqual(got["b.c"], wantC) {
		t.Errorf("b's outputs answered as %v, %v; want the references", got["b.a"], got["b.c"])
	}
	if got["d.a"] != a.ID || got["d.c"] != string(compURN) {
		t.Errorf("d's outputs answered as %#v, %#v; want a's ID %s and c's URN (the request takes no references)", got["d.a"], got["d.c"], a.ID)
	}
	if !resource.DeepEqual(got["self"], wantC) {
		t.Errorf("the method answered __self__ as %#v, want the reference %v", got["self"], wantC)
	}
	res, err := e.hosted(engine.Up, refProgram(t, got, &mu))
	if err != nil || len(res.Steps) != 0 {
		t.Fatalf("the second up: %v, steps %v", err, res.Steps)
	}
}

// TestHostedOutputValues drives the monitor as an SDK does once it
// answers outputValues: a remote component's inputs and a method's
// arguments reach the provider as output values with their dependencies
// (a plain secret or unknown upgraded to one, as Pulumi's engine does), a
// method's argument dependencies gain those of its output values, and a
// custom resource's output values are downgraded to plain values and
// secrets before its step.
func TestHostedOutputValues(t *testing.T) {
	e := newHostedEnv(t)
	var mu sync.Mutex
	var seen []resource.ConstructRequest
	e.plugin.OnConstruct = pairConstruct(&seen, &mu)
	var calls []resource.CallRequest
	e.plugin.OnCall = func(_ context.Context, req resource.CallRequest) (resource.CallResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, req)
		return resource.CallResponse{Return: resource.PropertyMap{}}, nil
	}
	out := func(v any, secret bool, deps ...resource.URN) resource.Output {
		return resource.Output{Element: v, Known: true, Secret: secret, Dependencies: deps}
	}
	keep := wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true}
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		a, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "a", Parent: root, Custom: true}, resource.PropertyMap{"n": 1.0})
		if err != nil {
			return err
		}
		obj, err := wire.Marshal(resource.PropertyMap{"n": out(2.0, false, resource.URN(a)), "pw": resource.Secret{Element: "hush"}}, keep)
		if err != nil {
			return err
		}
		pair, err := c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{Type: "test:index:Pair", Name: "pair", Parent: root,
			Remote: true, Object: obj, AcceptSecrets: true})
		if err != nil {
			return err
		}
		args, err := wire.Marshal(resource.PropertyMap{"__self__": resource.ResourceReference{URN: resource.URN(pair.GetUrn())},
			"x": out("s", true, resource.URN(a))}, keep)
		if err != nil {
			return err
		}
		if _, err = c.mon.Call(ctx, &pulumirpc.ResourceCallRequest{Tok: "test:index:Pair/m", Args: args,
			ArgDependencies: map[string]*pulumirpc.ResourceCallRequest_ArgumentDependencies{"x": {Urns: []string{root}}}}); err != nil {
			return err
		}
		obj, err = wire.Marshal(resource.PropertyMap{"n": out(3.0, true, resource.URN(a))}, keep)
		if err != nil {
			return err
		}
		_, err = c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "b", Parent: root, Custom: true,
			Object: obj, AcceptSecrets: true})
		return err
	})
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || len(calls) != 1 {
		t.Fatalf("%d constructs, %d calls", len(seen), len(calls))
	}
	wantN := out(2.0, false, urn("a"))
	if n := seen[0].Inputs["n"]; !resource.DeepEqual(n, wantN) {
		t.Errorf("the component's input n reached Construct as %#v, want %#v", n, wantN)
	}
	if pw := seen[0].Inputs["pw"]; !resource.DeepEqual(pw, out("hush", true)) {
		t.Errorf("the component's secret input reached Construct as %#v, want a secret output value", pw)
	}
	if x := calls[0].Args["x"]; !resource.DeepEqual(x, out("s", true, urn("a"))) {
		t.Errorf("the method's argument x reached Call as %#v", x)
	}
	if deps := calls[0].ArgDependencies["x"]; len(deps) != 2 || deps[0] != resource.RootURN(project, stack) || deps[1] != urn("a") {
		t.Errorf("the method's argument x depends on %v, want the stack and a (its output value's)", deps)
	}
	if n := e.find("b").Inputs["n"]; !resource.DeepEqual(n, resource.Secret{Element: 3.0}) {
		t.Errorf("b's output value input is recorded as %#v, want it downgraded to a secret", n)
	}
}

// TestHostedMalformedReferencesAndOutputs: a reference without a URN in a
// registration, or an output value whose dependency is not a URN string
// in a method's arguments, is refused with InvalidArgument naming the
// resource or method and the property; nothing is recorded.
func TestHostedMalformedReferencesAndOutputs(t *testing.T) {
	e := newHostedEnv(t)
	e.plugin.OnCall = func(context.Context, resource.CallRequest) (resource.CallResponse, error) {
		return resource.CallResponse{}, nil
	}
	var regErr, callErr error
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		bad := mustStruct(t, resource.PropertyMap{"tags": map[string]any{"r": map[string]any{wire.SigKey: wire.ResourceReferenceSig, "id": "x"}}})
		_, regErr = c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "b", Parent: root, Custom: true, Object: bad})
		args := mustStruct(t, resource.PropertyMap{"x": map[string]any{wire.SigKey: wire.OutputValueSig, "value": "v", "dependencies": []any{1.0}}})
		_, callErr = c.mon.Call(ctx, &pulumirpc.ResourceCallRequest{Tok: "test:index:Comp/m", Args: args})
		return nil
	})
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{regErr, "the inputs of " + string(urn("b")) + ": tags.r: a resource reference has no urn"},
		{callErr, "the arguments of test:index:Comp/m: x: an output value's dependency 0 is not a URN string"},
	} {
		if status.Code(tt.err) != codes.InvalidArgument || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("got %v, want InvalidArgument %q", tt.err, tt.want)
		}
	}
	if e.find("b") != nil {
		t.Error("the refused registration was recorded")
	}
}
