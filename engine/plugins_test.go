package engine_test

import (
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/random"
	"github.com/runnerhq/runner/engine/resource"
)

// TestWithRandomPlugin runs a real plugin through preview, up, a replace
// and destroy.
func TestWithRandomPlugin(t *testing.T) {
	e := newEnv(t)
	e.opts.Plugins = append(e.opts.Plugins, random.Plugin{})
	prog := func(length int) engine.Program {
		return func(ctx *engine.Context) error {
			pw := ctx.Resource(random.PasswordType, "pw", engine.Inputs{"length": length})
			ctx.Resource(typ, "user", engine.Inputs{"password": pw.Output("result")})
			ctx.Export("password", pw.Output("result"))
			return nil
		}
	}
	res, err := e.preview(prog(16))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Outputs["password"].(resource.Computed); !ok {
		t.Errorf("preview password = %v, want unknown", res.Outputs["password"])
	}
	res = e.mustUp(prog(16))
	if !res.Outputs.IsSecret("password") || !e.find("user").Inputs.IsSecret("password") {
		t.Errorf("the password is not secret: %v / %v", res.Outputs["password"], e.find("user").Inputs["password"])
	}
	first := e.find("pw").Outputs["result"]
	res = e.mustUp(prog(20))
	if res.Changes[engine.OpReplace] != 1 || resource.DeepEqual(e.find("pw").Outputs["result"], first) {
		t.Errorf("changing the length: %v", res.Changes)
	}
	if _, err := engine.Destroy(t.Context(), e.opts); err != nil {
		t.Fatal(err)
	}
}
