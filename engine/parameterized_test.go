package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	codegenrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/codegen"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/engine/resource"
)

// fishPackage registers testprov parameterized as package fish 0.5.0, as
// a parameterized package's generated SDK does.
var fishPackage = &pulumirpc.RegisterPackageRequest{Name: "testprov", Version: "1.2.3",
	Parameterization: &pulumirpc.Parameterization{Name: "fish", Version: "0.5.0", Value: []byte("fish-spec")}}

// newFishEnv is an engine setup with no plugin but the test plugin,
// parameterized for the packages programs register.
func newFishEnv(t *testing.T) *env {
	if testing.Short() {
		t.Skip("builds and runs pulumi-resource-testprov")
	}
	bin := providertest.Binary(t)
	pool := pluginhost.NewPool(pluginhost.PoolOptions{Workspace: t.TempDir(), Environ: os.Environ(),
		Locate: func(pkg, _ string) (string, error) {
			if pkg != "testprov" {
				t.Errorf("the pool looked for plugin %q, not the base plugin testprov", pkg)
			}
			return bin, nil
		}})
	t.Cleanup(func() { pool.Close(context.Background()) })
	e := newEnv(t)
	e.opts.Plugins = nil
	e.opts.LoadParameterized = func(_ context.Context, pz resource.Parameterization, _ string) (resource.Plugin, error) {
		return pool.ParameterizedPlugin(pz), nil
	}
	return e
}

// TestHostedParameterizedPackage drives the monitor as a parameterized
// package's SDK does (no host), on the real test plugin: RegisterPackage
// (the same package twice gets one reference), a resource of the package
// by its packageRef, its outputs; the default provider is Pulumi's
// pulumi:providers:fish::default_0_5_0 recording the base plugin and the
// parameterization; a second package of the same base plugin and a read
// by packageRef are served; the schema Loader answers the parameterized schema; a
// second up changes nothing; destroy re-parameterizes the plugin from the
// state alone; an unknown reference is refused.
func TestHostedParameterizedPackage(t *testing.T) {
	e := newFishEnv(t)
	e.opts.Config = map[string]any{"fish:store": t.TempDir(), "cat:store": t.TempDir()}

	var outs resource.PropertyMap
	var schema []byte
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		feat, err := c.mon.SupportsFeature(ctx, &pulumirpc.SupportsFeatureRequest{Id: "parameterization"})
		if err != nil || !feat.GetHasSupport() {
			t.Errorf("SupportsFeature(parameterization) = %v, %v", feat, err)
		}
		ref, err := c.mon.RegisterPackage(ctx, fishPackage)
		if err != nil {
			return err
		}
		again, err := c.mon.RegisterPackage(ctx, fishPackage)
		if err != nil || again.GetRef() != ref.GetRef() || ref.GetRef() == "" {
			t.Errorf("RegisterPackage twice = %q, then %q, %v", ref.GetRef(), again.GetRef(), err)
		}
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: project + "-" + stack}, nil)
		if err != nil {
			return err
		}
		var id string
		_, id, outs, err = c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "fish:index:Thing", Name: "t", Parent: root,
			Custom: true, PackageRef: ref.GetRef()}, resource.PropertyMap{"value": "v"})
		if err != nil {
			return err
		}
		// A second package of the same base plugin, in its own processes.
		cat, err := c.mon.RegisterPackage(ctx, &pulumirpc.RegisterPackageRequest{Name: "testprov", Version: "1.2.3",
			Parameterization: &pulumirpc.Parameterization{Name: "cat", Version: "2.0.0", Value: []byte("cat-spec")}})
		if err != nil {
			return err
		}
		if _, _, _, err = c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "cat:index:Thing", Name: "c", Parent: root,
			Custom: true, PackageRef: cat.GetRef()}, resource.PropertyMap{"value": "meow"}); err != nil {
			return err
		}
		read, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{Type: "fish:index:Thing", Name: "seen", Id: id, Parent: root,
			PackageRef: ref.GetRef()})
		if err != nil {
			return err
		}
		if v := read.GetProperties().GetFields()["value"].GetStringValue(); v != "v" {
			t.Errorf("the read by packageRef got value %q", v)
		}
		conn, err := grpc.NewClient(c.req.MonitorAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err
		}
		defer conn.Close()
		resp, err := codegenrpc.NewLoaderClient(conn).GetSchema(ctx, &codegenrpc.GetSchemaRequest{Package: "testprov", Version: "1.2.3",
			Parameterization: &codegenrpc.Parameterization{Name: "fish", Version: "0.5.0", Value: []byte("fish-spec")}})
		schema = resp.GetSchema()
		return err
	})
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if outs["value"] != "v" || outs["generation"] != 1.0 {
		t.Errorf("the resource's outputs: %v", outs)
	}
	var spec struct{ Name, Version string }
	if err := json.Unmarshal(schema, &spec); err != nil || spec.Name != "fish" || spec.Version != "0.5.0" {
		t.Errorf("the parameterized schema: %s, %v", schema, err)
	}
	if cp := e.find("default_2_0_0"); cp == nil || cp.Type != "pulumi:providers:cat" || e.find("c") == nil || e.find("seen") == nil {
		t.Errorf("the second package's provider %+v, its Thing %+v, the read %+v", cp, e.find("c"), e.find("seen"))
	}
	thing := e.find("t")
	prov := e.find("default_0_5_0")
	if thing == nil || prov == nil {
		t.Fatalf("recorded: %+v; provider %+v", thing, prov)
	}
	internal, _ := prov.Inputs["__internal"].(map[string]any)
	if prov.Type != "pulumi:providers:fish" || prov.Inputs["version"] != "0.5.0" || internal["name"] != "testprov" ||
		internal["version"] != "1.2.3" || internal["parameterization"] != "ZmlzaC1zcGVj" || !strings.HasPrefix(thing.Provider, string(prov.URN)+"::") {
		t.Errorf("the provider recorded as %s %v; the resource's provider %q", prov.URN, prov.Inputs, thing.Provider)
	}
	res, err := e.hosted(engine.Up, prog)
	if err != nil || res.Changes[engine.OpCreate]+res.Changes[engine.OpUpdate]+res.Changes[engine.OpReplace] != 0 {
		t.Errorf("the second up: %v, %v", res, err)
	}
	if _, err := engine.Destroy(t.Context(), e.opts); err != nil {
		t.Fatal(err)
	}
	if e.find("t") != nil || e.find("default_0_5_0") != nil {
		t.Errorf("destroy left %v", e.snap().Resources)
	}
	bad := hostedFunc(func(ctx context.Context, c *client) error {
		_, err := c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{Type: "fish:index:Thing", Name: "u", Custom: true, PackageRef: "nope"})
		return err
	})
	if _, err := e.hosted(engine.Up, bad); err == nil || !strings.Contains(err.Error(), `names package reference "nope", which the program did not register`) {
		t.Errorf("an unknown package reference: %v", err)
	}
	remote := hostedFunc(func(ctx context.Context, c *client) error {
		ref, err := c.mon.RegisterPackage(ctx, fishPackage)
		if err != nil {
			return err
		}
		_, err = c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{Type: "fish:index:Pair", Name: "p", Remote: true, PackageRef: ref.GetRef()})
		return err
	})
	if _, err := e.hosted(engine.Up, remote); err == nil || !strings.Contains(err.Error(), `is a component of a registered package (packageRef), which runner does not support yet`) {
		t.Errorf("a component of a parameterized package: %v", err)
	}
}

// TestHostedParameterizedExplicitProvider: an explicit provider of a
// parameterized package (its type pulumi:providers:fish, its packageRef)
// records the parameterization as Pulumi does and serves the resources
// that name it, through the test plugin parameterized; destroy deletes
// them through it again, from the state alone.
func TestHostedParameterizedExplicitProvider(t *testing.T) {
	e := newFishEnv(t)
	store := t.TempDir()
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		ref, err := c.mon.RegisterPackage(ctx, fishPackage)
		if err != nil {
			return err
		}
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: project + "-" + stack}, nil)
		if err != nil {
			return err
		}
		purn, pid, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "pulumi:providers:fish", Name: "p", Parent: root,
			Custom: true, PackageRef: ref.GetRef()}, resource.PropertyMap{"store": store})
		if err != nil {
			return err
		}
		_, _, _, err = c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: "fish:index:Thing", Name: "t", Parent: root,
			Custom: true, PackageRef: ref.GetRef(), Provider: purn + "::" + pid}, resource.PropertyMap{"value": "v"})
		return err
	})
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	prov, thing := e.find("p"), e.find("t")
	if prov == nil || thing == nil || e.find("default_0_5_0") != nil {
		t.Fatalf("recorded: provider %+v, Thing %+v, a default provider %v", prov, thing, e.find("default_0_5_0"))
	}
	internal, _ := prov.Inputs["__internal"].(map[string]any)
	if prov.Inputs["version"] != "0.5.0" || internal["name"] != "testprov" || internal["version"] != "1.2.3" ||
		internal["parameterization"] != "ZmlzaC1zcGVj" || thing.Provider != string(prov.URN)+"::"+prov.ID {
		t.Errorf("the provider recorded as %v; the Thing's provider %q", prov.Inputs, thing.Provider)
	}
	if _, err := engine.Destroy(t.Context(), e.opts); err != nil {
		t.Fatal(err)
	}
	if e.find("t") != nil || e.find("p") != nil {
		t.Errorf("destroy left %v", e.snap().Resources)
	}
}
