package program_test

import (
	"context"
	"testing"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

// TestRecordedAndPlaintext: Recorded asks the engine for the URN the
// program would declare typ and name under; Plaintext gives the text of a
// secret config value.
func TestRecordedAndPlaintext(t *testing.T) {
	want := resource.NewURN("dev", "p", resource.RootURN("p", "dev").QualifiedType(), typ, "a")
	e := env()
	e.Config = map[string]any{"cloud:token": resource.Secret{Element: "s3cret"}, "p:plain": "x"}
	e.Recorded = func(urn resource.URN) (resource.PropertyMap, bool) {
		if urn != want {
			return nil, false
		}
		return resource.PropertyMap{"name": "made"}, true
	}
	for _, c := range []struct {
		name, resName string
		recorded      bool
	}{{"recorded", "a", true}, {"not recorded", "b", false}} {
		t.Run(c.name, func(t *testing.T) {
			_, err := program.Run(context.Background(), e, func(ctx *program.Context) error {
				outs, ok := ctx.Recorded(typ, c.resName)
				if ok != c.recorded || (ok && outs["name"] != "made") {
					t.Errorf("Recorded(%s) = %v, %v", c.resName, outs, ok)
				}
				if v, ok := ctx.Plaintext("cloud:token"); v != "s3cret" || !ok {
					t.Errorf("Plaintext of the secret = %q, %v", v, ok)
				}
				if v, ok := ctx.Plaintext("plain"); v != "x" || !ok {
					t.Errorf("Plaintext of plain (the project's namespace) = %q, %v", v, ok)
				}
				if _, ok := ctx.Plaintext("cloud:none"); ok {
					t.Error("Plaintext of an unset key is set")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := program.Run(context.Background(), env(), func(ctx *program.Context) error {
		if _, ok := ctx.Recorded(typ, "a"); ok {
			t.Error("Recorded without the engine's answer is recorded")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
