package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// reg is one registration of a hosted test program.
type reg struct {
	req *pulumirpc.RegisterResourceRequest
	in  resource.PropertyMap
}

// registers is a hosted program that registers the root stack, then regs
// in order, each custom resource's parent the stack unless it names one,
// and reports IDs by name to ids (when not nil).
func registers(ids map[string]string, regs ...reg) hostedFunc {
	return func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		for _, r := range regs {
			if r.req.Parent == "" {
				r.req.Parent = root
			}
			_, id, _, err := c.register(ctx, r.req, r.in)
			if err != nil {
				return err
			}
			if ids != nil {
				ids[r.req.Name] = id
			}
		}
		return nil
	}
}

func custom(name string, in resource.PropertyMap) reg {
	return reg{req: &pulumirpc.RegisterResourceRequest{Type: typ, Name: name, Custom: true}, in: in}
}

func TestHostedReplaceOnChanges(t *testing.T) {
	e := newHostedEnv(t)
	if _, err := e.hosted(engine.Up, registers(nil, custom("a", resource.PropertyMap{"n": 1.0}))); err != nil {
		t.Fatal(err)
	}
	a := custom("a", resource.PropertyMap{"n": 2.0})
	a.req.ReplaceOnChanges = []string{"n"}
	res, err := e.hosted(engine.Up, registers(nil, a))
	if err != nil || res.Changes[engine.OpReplace] != 1 || e.plugin.Count("Delete") != 1 {
		t.Fatalf("up: %v, %v, %d deletes", err, res.Changes, e.plugin.Count("Delete"))
	}
}

func TestHostedAliasKeepsTheResource(t *testing.T) {
	e := newHostedEnv(t)
	if _, err := e.hosted(engine.Up, registers(nil, custom("a", resource.PropertyMap{"n": 1.0}))); err != nil {
		t.Fatal(err)
	}
	renamed := custom("b", resource.PropertyMap{"n": 1.0})
	renamed.req.AliasURNs = []string{string(urn("a"))}
	res, err := e.hosted(engine.Up, registers(nil, renamed))
	if err != nil || e.plugin.Count("Create") != 1 || e.plugin.Count("Delete") != 0 || res.Changes[engine.OpSame] != 2 {
		t.Fatalf("rename: %v, %v, %d creates, %d deletes", err, res.Changes, e.plugin.Count("Create"), e.plugin.Count("Delete"))
	}
	if e.find("b") == nil || e.find("a") != nil {
		t.Error("the renamed resource is not recorded under its new URN alone")
	}
}

func TestHostedComponentsAndExplicitProviders(t *testing.T) {
	e := newHostedEnv(t)
	ids := map[string]string{}
	comp := reg{req: &pulumirpc.RegisterResourceRequest{Type: "my:index:Component", Name: "comp"}}
	prog := func(ctx context.Context, c *client) error {
		if err := registers(ids, comp, reg{req: &pulumirpc.RegisterResourceRequest{Type: providerType, Name: "p", Custom: true},
			in: resource.PropertyMap{"region": "us"}})(ctx, c); err != nil {
			return err
		}
		compURN := string(resource.NewURN(stack, project, "", "my:index:Component", "comp"))
		pURN := string(resource.NewURN(stack, project, "", providerType, "p"))
		child := custom("child", resource.PropertyMap{"n": 1.0})
		child.req.Parent, child.req.Provider = compURN, pURN+"::"+ids["p"]
		if _, _, _, err := c.register(ctx, child.req, child.in); err != nil {
			return err
		}
		_, err := c.mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{Urn: compURN,
			Outputs: mustStruct(t, resource.PropertyMap{"size": 3.0})})
		return err
	}
	if _, err := e.hosted(engine.Up, hostedFunc(prog)); err != nil {
		t.Fatal(err)
	}
	child := e.find("child")
	if child == nil || !strings.Contains(string(child.Parent), "my:index:Component::comp") || !strings.HasPrefix(child.Provider, string(resource.NewURN(stack, project, "", providerType, "p"))) {
		t.Fatalf("child recorded as %+v", child)
	}
	if c := e.find("comp"); c == nil || c.Outputs["size"] != 3.0 {
		t.Errorf("component recorded as %+v", c)
	}
}

func TestHostedPluginByPackage(t *testing.T) {
	e := newHostedEnv(t)
	var asked []string
	e.opts.LoadPlugin = func(_ context.Context, pkg, version, url string) (resource.Plugin, error) {
		asked = append(asked, pkg+"@"+version+"@"+url)
		return nil, errors.New("the resource plugin noop 0.0.1 is not installed; install it with `runner plugin install noop 0.0.1`")
	}
	r := reg{req: &pulumirpc.RegisterResourceRequest{Type: "noop:index:Thing", Name: "x", Custom: true, Version: "0.0.1", PluginDownloadURL: "https://example.test"}}
	_, err := e.hosted(engine.Up, registers(nil, r))
	if err == nil || !strings.Contains(err.Error(), "runner plugin install noop 0.0.1") || len(asked) != 1 || asked[0] != "noop@0.0.1@https://example.test" {
		t.Fatalf("up: %v; asked %v", err, asked)
	}
}

// TestHostedRefusals checks what a program gets for a registration the
// engine refuses: a second resource of one URN, anything after a failed
// step (not attempted, and nothing deleted), outputs of a resource never
// registered.
func TestHostedRefusals(t *testing.T) {
	e := newHostedEnv(t)
	if _, err := e.hosted(engine.Up, registers(nil, custom("a", resource.PropertyMap{"n": 1.0}), custom("b", nil))); err != nil {
		t.Fatal(err)
	}
	_, err := e.hosted(engine.Up, registers(nil, custom("a", nil), custom("a", nil)))
	if err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("duplicate: %v", err)
	}
	e.plugin.OnCheck = func(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
		if req.URN.Name() == "a" {
			return nil, errors.New("a is refused")
		}
		return req.News, nil
	}
	var second error
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		if err := registers(nil, custom("a", nil))(ctx, c); err == nil {
			return errors.New("a was not refused")
		}
		_, _, _, second = c.register(ctx, custom("c", nil).req, nil)
		_, err := c.mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{Urn: string(urn("nope"))})
		if err == nil {
			return errors.New("outputs of a resource never registered were accepted")
		}
		return errors.New("the program gave up")
	})
	_, err = e.hosted(engine.Up, prog)
	if err == nil || !strings.Contains(err.Error(), "a is refused") || strings.Contains(err.Error(), "gave up") {
		t.Errorf("failed step: %v", err)
	}
	if second == nil || !strings.Contains(second.Error(), "not attempted") {
		t.Errorf("a registration after the failure: %v", second)
	}
	if e.find("b") == nil || e.plugin.Count("Delete") != 0 || e.plugin.Exists(urn("c")) {
		t.Error("a failed step deleted or created something")
	}
}

// TestHostedPlan checks an up given a hosted program's preview plan stops
// at the first registration that differs from its planned step, before its
// plugin call, and runs when the program registers what was planned.
func TestHostedPlan(t *testing.T) {
	e := newHostedEnv(t)
	prog := registers(nil, custom("a", resource.PropertyMap{"n": 1.0}))
	res, err := e.hosted(engine.Preview, prog)
	if err != nil || res.Plan == nil {
		t.Fatalf("preview: %v", err)
	}
	e.opts.Plan = res.Plan
	if _, err := e.hosted(engine.Up, registers(nil, custom("a", resource.PropertyMap{"n": 2.0}))); !errors.As(err, new(*engine.PlanMismatchError)) {
		t.Fatalf("up of another program: %v", err)
	}
	if e.plugin.Count("Create") != 0 {
		t.Fatal("a refused plan created something")
	}
	e.opts.Plan = nil
	if res, err = e.hosted(engine.Preview, prog); err != nil {
		t.Fatal(err)
	}
	e.opts.Plan = res.Plan
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatalf("up of the planned program: %v", err)
	}
	if e.find("a") == nil {
		t.Error("a was not created")
	}
}
