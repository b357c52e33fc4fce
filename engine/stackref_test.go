package engine_test

import (
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// TestStackReferenceGivenOutputs checks that Options.References replaces
// the stored snapshot of the projects it knows, keeping unknown values
// unknown and secrets secret, and that the others are still loaded.
func TestStackReferenceGivenOutputs(t *testing.T) {
	e := newEnv(t)
	for name, host := range map[string]string{"network": "10.0.0.1", "dns": "ns.example"} {
		producer := e.opts
		producer.Project = name
		_, err := engine.Up(t.Context(), producer, func(ctx *engine.Context) error {
			ctx.Export("host", host)
			ctx.Export("later", "y")
			ctx.Export("token", engine.Secret("tok-123"))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	consumer := func(ctx *engine.Context) error {
		net := ctx.StackReference("network")
		dns := ctx.StackReference("dns")
		ctx.Resource(typ, "app", engine.Inputs{"host": net.Output("host"), "token": net.Output("token"), "dns": dns.Output("host")})
		ctx.Export("host", net.Output("host"))
		ctx.Export("token", net.Output("token"))
		ctx.Export("later", net.Output("later"))
		ctx.Export("dns", dns.Output("host"))
		return nil
	}
	e.mustUp(consumer)

	tests := []struct {
		name      string
		given     resource.PropertyMap
		wantOp    engine.Op // of app; "" for no step
		wantHost  any
		wantLater any
	}{
		{name: "unchanged outputs", given: resource.PropertyMap{"host": "10.0.0.1", "token": resource.Secret{Element: "tok-123"}, "later": "y"},
			wantHost: "10.0.0.1", wantLater: "y"},
		{name: "a planned value", given: resource.PropertyMap{"host": "10.0.0.2", "token": resource.Secret{Element: "tok-123"}, "later": "x"},
			wantOp: engine.OpUpdate, wantHost: "10.0.0.2", wantLater: "x"},
		{name: "an unknown value", given: resource.PropertyMap{"host": resource.Computed{}, "token": resource.Secret{Element: "tok-123"}, "later": resource.Computed{}},
			wantOp: engine.OpUpdate, wantHost: resource.Computed{}, wantLater: resource.Computed{}},
		{name: "an unknown secret", given: resource.PropertyMap{"host": "10.0.0.1", "token": resource.Secret{Element: resource.Computed{}}, "later": resource.Computed{}},
			wantOp: engine.OpUpdate, wantHost: "10.0.0.1", wantLater: resource.Computed{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := e.opts
			opts.References = func(project string) (resource.PropertyMap, bool) {
				if project != "network" {
					return nil, false
				}
				return tt.given, true
			}
			res, err := engine.Preview(t.Context(), opts, consumer)
			if err != nil {
				t.Fatal(err)
			}
			var op engine.Op
			for _, s := range res.Steps {
				if s.URN == urn("app") {
					op = s.Op
				}
			}
			if op != tt.wantOp {
				t.Errorf("app's step is %q, want %q (steps %v)", op, tt.wantOp, res.Steps)
			}
			if !sameValue(res.Outputs["host"], tt.wantHost) || !sameValue(res.Outputs["later"], tt.wantLater) {
				t.Errorf("outputs host %v later %v, want %v and %v", res.Outputs["host"], res.Outputs["later"], tt.wantHost, tt.wantLater)
			}
			// An unknown value has no plaintext to protect: it may lose its mark.
			if _, unknown := res.Outputs["token"].(resource.Computed); !unknown && !res.Outputs.IsSecret("token") {
				t.Errorf("the token output %#v is no longer secret", res.Outputs["token"])
			}
			if res.Outputs["dns"] != "ns.example" {
				t.Errorf("dns = %v: a project References does not know must be read from its snapshot", res.Outputs["dns"])
			}
		})
	}
}

// sameValue compares two property values, unknown equal to unknown.
func sameValue(a, b any) bool {
	_, ua := a.(resource.Computed)
	_, ub := b.(resource.Computed)
	if ua || ub {
		return ua && ub
	}
	return resource.DeepEqual(a, b)
}

// TestStackReferenceMissingPlannedOutput checks that an output the given
// outputs lack fails the preview as it will fail the up, instead of
// passing for unknown.
func TestStackReferenceMissingPlannedOutput(t *testing.T) {
	e := newEnv(t)
	e.opts.References = func(string) (resource.PropertyMap, bool) {
		return resource.PropertyMap{"host": "10.0.0.1"}, true
	}
	prog := func(ctx *engine.Context) error {
		ctx.Resource(typ, "app", engine.Inputs{"port": ctx.StackReference("network").Output("port")})
		return nil
	}
	for name, run := range map[string]func(engine.Program) (*engine.Result, error){"preview": e.preview, "up": e.up} {
		if _, err := run(prog); err == nil || !contains(err.Error(), `project network does not export "port"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
