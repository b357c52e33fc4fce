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
