package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

// fakeCallbacks is a program's Callbacks service: each token names a
// function, and each call is noted as "token:name".
type fakeCallbacks struct {
	pulumirpc.UnimplementedCallbacksServer
	addr  string
	mu    sync.Mutex
	calls []string
	fns   map[string]func(ctx context.Context, req []byte) (proto.Message, error)
}

// newFakeCallbacks serves the functions on a loopback port until the test
// ends.
func newFakeCallbacks(t *testing.T, fns map[string]func(context.Context, []byte) (proto.Message, error)) *fakeCallbacks {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeCallbacks{addr: lis.Addr().String(), fns: fns}
	srv := grpc.NewServer()
	pulumirpc.RegisterCallbacksServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return f
}

func (f *fakeCallbacks) Invoke(ctx context.Context, req *pulumirpc.CallbackInvokeRequest) (*pulumirpc.CallbackInvokeResponse, error) {
	fn := f.fns[req.GetToken()]
	if fn == nil {
		return nil, status.Errorf(codes.NotFound, "callback not found: %s", req.GetToken())
	}
	msg, err := fn(ctx, req.GetRequest())
	if err != nil {
		return nil, err
	}
	b, err := proto.Marshal(msg)
	return &pulumirpc.CallbackInvokeResponse{Response: b}, err
}

func (f *fakeCallbacks) cb(token string) *pulumirpc.Callback {
	return &pulumirpc.Callback{Target: f.addr, Token: token}
}

func (f *fakeCallbacks) noted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// transform is a resource transform noted as token:name that changes the
// properties (decoded with secrets and unknowns kept) and options.
func (f *fakeCallbacks) transform(token string, change func(*pulumirpc.TransformRequest, resource.PropertyMap) error) func(context.Context, []byte) (proto.Message, error) {
	return func(_ context.Context, b []byte) (proto.Message, error) {
		var req pulumirpc.TransformRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.calls = append(f.calls, token+":"+req.GetName())
		f.mu.Unlock()
		props, err := wire.Unmarshal(req.GetProperties(), wire.Options{KeepUnknowns: true, KeepSecrets: true})
		if err != nil {
			return nil, err
		}
		if err := change(&req, props); err != nil {
			return nil, err
		}
		s, err := wire.Marshal(props, wire.Options{KeepUnknowns: true, KeepSecrets: true})
		return &pulumirpc.TransformResponse{Properties: s, Options: req.GetOptions()}, err
	}
}

// transformProgram registers a stack transform (tag: "stack"; it checks
// that a secret stays secret and an unknown unknown), a component whose
// transform marks its custom descendants retainOnDelete and sets owner,
// and under it "a", whose own transform sets n to 2; then an invoke
// transform that points getResource at "a".
func transformProgram(t *testing.T, f *fakeCallbacks) hostedFunc {
	return func(ctx context.Context, c *client) error {
		if resp, err := c.mon.SupportsFeature(ctx, &pulumirpc.SupportsFeatureRequest{Id: "transforms"}); err != nil || !resp.GetHasSupport() {
			return fmt.Errorf("SupportsFeature(transforms) = %v, %v", resp.GetHasSupport(), err)
		}
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		if _, err := c.mon.RegisterStackTransform(ctx, f.cb("stack")); err != nil {
			return err
		}
		comp, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "my:index:Comp", Name: "comp", Parent: root,
			Transforms: []*pulumirpc.Callback{f.cb("comp")}}, nil)
		if err != nil {
			return fmt.Errorf("comp: %w", err)
		}
		in := resource.PropertyMap{"n": 1.0, "pw": resource.Secret{Element: "hush"}}
		if c.req.DryRun {
			in["later"] = resource.Computed{}
		}
		aURN, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "a", Parent: comp, Custom: true,
			Transforms: []*pulumirpc.Callback{f.cb("own")}}, in)
		if err != nil {
			return fmt.Errorf("a: %w", err)
		}
		if _, err := c.mon.RegisterStackInvokeTransform(ctx, f.cb("invoke")); err != nil {
			return err
		}
		got, err := c.mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{Tok: "pulumi:pulumi:getResource", Args: mustStruct(t, resource.PropertyMap{"urn": "nothing"})})
		if err != nil || got.GetReturn().GetFields()["urn"].GetStringValue() != aURN {
			return fmt.Errorf("getResource through the invoke transform: %v, %v", got, err)
		}
		return nil
	}
}

// transformFns are transformProgram's callbacks.
func transformFns(f *fakeCallbacks, aURN func() string) map[string]func(context.Context, []byte) (proto.Message, error) {
	return map[string]func(context.Context, []byte) (proto.Message, error){
		"stack": f.transform("stack", func(req *pulumirpc.TransformRequest, p resource.PropertyMap) error {
			if _, ok := p["pw"]; ok {
				if _, secret := p["pw"].(resource.Secret); !secret {
					return fmt.Errorf("pw reached the stack transform as %#v", p["pw"])
				}
			}
			if v, ok := p["later"]; ok && !resource.ContainsComputed(v) {
				return fmt.Errorf("later reached the stack transform as %#v", v)
			}
			p["tag"] = "stack"
			return nil
		}),
		"comp": f.transform("comp", func(req *pulumirpc.TransformRequest, p resource.PropertyMap) error {
			p["owner"] = "comp"
			if req.GetCustom() {
				retain := true
				req.Options.RetainOnDelete = &retain
			}
			return nil
		}),
		"own": f.transform("own", func(_ *pulumirpc.TransformRequest, p resource.PropertyMap) error {
			p["n"] = 2.0
			return nil
		}),
		"invoke": func(_ context.Context, b []byte) (proto.Message, error) {
			var req pulumirpc.TransformInvokeRequest
			if err := proto.Unmarshal(b, &req); err != nil {
				return nil, err
			}
			s, err := wire.Marshal(resource.PropertyMap{"urn": aURN()}, wire.Options{})
			return &pulumirpc.TransformInvokeResponse{Args: s}, err
		},
	}
}

// TestHostedTransforms drives the monitor's transforms as the SDKs do:
// a stack transform, a component's transform applying to its child after
// the child's own, in Pulumi's order; the changed properties and options
// are what preview plans and up records; secrets and unknowns survive the
// round trip; an invoke transform rewrites an invoke's arguments.
func TestHostedTransforms(t *testing.T) {
	e := newHostedEnv(t)
	f := newFakeCallbacks(t, nil)
	a := resource.NewURN(stack, project, "my:index:Comp", typ, "a")
	f.fns = transformFns(f, func() string { return string(a) })
	res, err := e.hosted(engine.Preview, transformProgram(t, f))
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	want := "comp:comp stack:comp own:a comp:a stack:a"
	if got := strings.Join(f.noted(), " "); got != want {
		t.Errorf("the transforms ran as %q, want %q", got, want)
	}
	var planned bool
	for _, s := range res.Steps {
		if s.URN == a {
			planned = true
			if keys := strings.Join(s.Keys, ","); keys != "later,n,owner,pw,tag" {
				t.Errorf("the preview of a does not show the transformed inputs: %+v", s)
			}
		}
	}
	if !planned {
		t.Errorf("the preview planned no step for a: %+v", res.Steps)
	}
	if _, err := e.hosted(engine.Up, transformProgram(t, f)); err != nil {
		t.Fatalf("up: %v", err)
	}
	got := e.find("a")
	if got == nil || got.Inputs["n"] != 2.0 || got.Inputs["tag"] != "stack" || got.Inputs["owner"] != "comp" || !got.RetainOnDelete {
		t.Fatalf("a recorded as %+v", got)
	}
	if _, ok := got.Inputs["pw"].(resource.Secret); !ok {
		t.Errorf("a's secret input is recorded as %#v", got.Inputs["pw"])
	}
	if res, err := e.hosted(engine.Up, transformProgram(t, f)); err != nil || len(res.Steps) != 0 {
		t.Errorf("a second up changed %v (%v)", res, err)
	}
}

// TestHostedTransformFails: a transform that fails fails the run naming
// the resource and the program's message, and deletes nothing.
func TestHostedTransformFails(t *testing.T) {
	e := newHostedEnv(t)
	f := newFakeCallbacks(t, nil)
	a := resource.NewURN(stack, project, "my:index:Comp", typ, "a")
	f.fns = transformFns(f, func() string { return string(a) })
	if _, err := e.hosted(engine.Up, transformProgram(t, f)); err != nil {
		t.Fatal(err)
	}
	f.fns["stack"] = func(context.Context, []byte) (proto.Message, error) {
		return nil, status.Error(codes.Unknown, "boom: no tag for you")
	}
	_, err := e.hosted(engine.Up, transformProgram(t, f))
	if err == nil || !strings.Contains(err.Error(), `a transform of my:index:Comp "comp" failed: boom: no tag for you`) {
		t.Fatalf("a failing transform: %v", err)
	}
	if e.find("a") == nil || e.plugin.Count("Delete") != 0 {
		t.Error("a failed transform deleted a")
	}
}

// TestHostedTransformCancelled: cancelling the run ends a transform in
// progress: the program's callback sees its call cancelled.
func TestHostedTransformCancelled(t *testing.T) {
	e := newHostedEnv(t)
	started, ended := make(chan struct{}), make(chan error, 1)
	f := newFakeCallbacks(t, map[string]func(context.Context, []byte) (proto.Message, error){
		"hang": func(ctx context.Context, _ []byte) (proto.Message, error) {
			close(started)
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		},
	})
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		_, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: "a", Custom: true,
			Transforms: []*pulumirpc.Callback{f.cb("hang")}}, nil)
		return err
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	opts := e.opts
	opts.Hosted = prog
	_, err := engine.Up(ctx, opts, nil)
	if err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "cancel") {
		t.Errorf("the cancelled up: %v", err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the callback's call ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the callback's call was not cancelled")
	}
}

// TestHostedRemoteComponentTransforms: a remote component's transforms
// run on it, and, as in Pulumi, again when its provider registers it
// through the monitor, and on the children the provider registers under
// it.
func TestHostedRemoteComponentTransforms(t *testing.T) {
	e := newHostedEnv(t)
	var mu sync.Mutex
	var seen []resource.ConstructRequest
	e.plugin.OnConstruct = pairConstruct(&seen, &mu)
	f := newFakeCallbacks(t, nil)
	f.fns = map[string]func(context.Context, []byte) (proto.Message, error){
		"comp": f.transform("comp", func(_ *pulumirpc.TransformRequest, p resource.PropertyMap) error {
			if n, ok := p["n"].(float64); ok {
				p["n"] = n + 10
			}
			return nil
		}),
	}
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		_, _, _, err = c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "test:index:Pair", Name: "pair", Parent: root, Remote: true,
			Transforms: []*pulumirpc.Callback{f.cb("comp")}}, resource.PropertyMap{"n": 1.0})
		return err
	})
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(f.noted(), " "), "comp:pair comp:pair comp:pair-child"; got != want {
		t.Errorf("the transforms ran as %q, want %q", got, want)
	}
	if len(seen) != 1 || seen[0].Inputs["n"] != 11.0 {
		t.Errorf("Construct got %+v", seen)
	}
	if child := e.find("pair-child"); child == nil || child.Inputs["n"] != 21.0 {
		t.Errorf("the child is recorded as %+v", child)
	}
}
