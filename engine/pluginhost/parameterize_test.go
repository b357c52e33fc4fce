package pluginhost

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestParameterizedPlugin(t *testing.T) {
	tp := newTestprov(t)
	ctx := context.Background()
	cases := []struct {
		name, pkg, wantErr string
		value              []byte
	}{
		{name: "served", pkg: "fish", value: []byte("fish-spec")},
		{name: "refused", pkg: "testprov2", wantErr: "could not be parameterized to serve package testprov2 0.5.0: testprov: Parameterize needs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := tp.pool.ParameterizedPlugin(Parameterization{Base: "testprov", BaseVersion: "1.2.3", Name: c.pkg, Version: "0.5.0", Value: c.value})
			urn := resource.URN("urn:pulumi:dev::web::pulumi:providers:" + c.pkg + "::default_0_5_0")
			news := resource.PropertyMap{"version": "0.5.0", "store": tp.store,
				"__internal": map[string]any{"name": "testprov", "version": "1.2.3", "parameterization": "ZmlzaC1zcGVj"}}
			checked, err := h.CheckConfig(ctx, resource.CheckRequest{URN: urn, News: news})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("CheckConfig = %v, want an error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := h.Configure(ctx, resource.ConfigureRequest{URN: urn, ID: "4b0c4a44-0000-4000-8000-000000000001", Inputs: checked})
			if err != nil {
				t.Fatal(err)
			}
			thing := resource.URN("urn:pulumi:dev::web::fish:index:Thing::a")
			ins, err := p.Check(ctx, resource.CheckRequest{URN: thing, News: resource.PropertyMap{"value": "v"}, RandomSeed: make([]byte, 32)})
			if err != nil {
				t.Fatal(err)
			}
			made, err := p.Create(ctx, resource.CreateRequest{URN: thing, Inputs: ins})
			if err != nil || made.ID == "" || made.Outputs["value"] != "v" {
				t.Fatalf("Create = %+v, %v", made, err)
			}
			b, err := h.(resource.SchemaSource).Schema(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var spec struct {
				Name, Version string
				Resources     map[string]any
			}
			if err := json.Unmarshal(b, &spec); err != nil || spec.Name != "fish" || spec.Version != "0.5.0" || spec.Resources["fish:index:Thing"] == nil {
				t.Fatalf("schema = %s, %v", b, err)
			}
		})
	}
}

// TestParameterizedPluginsApart: two parameterizations of one package
// name and version that differ in value (two projects of one run, each
// with its own) get processes of their own, each sent its own value.
func TestParameterizedPluginsApart(t *testing.T) {
	tp := newTestprov(t)
	ctx := context.Background()
	for _, value := range []string{"one", "two", "one"} {
		h := tp.pool.ParameterizedPlugin(Parameterization{Base: "testprov", BaseVersion: "1.2.3", Name: "fish", Version: "0.5.0", Value: []byte(value)})
		b, err := h.(resource.SchemaSource).Schema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var spec struct {
			Parameterization struct{ Parameter []byte }
		}
		if err := json.Unmarshal(b, &spec); err != nil || string(spec.Parameterization.Parameter) != value {
			t.Errorf("the plugin parameterized with %q answers the schema of %q (%v)", value, spec.Parameterization.Parameter, err)
		}
	}
	tp.pool.mu.Lock()
	n := len(tp.pool.plugins)
	tp.pool.mu.Unlock()
	if n != 2 {
		t.Errorf("%d processes for two parameterizations", n)
	}
}
