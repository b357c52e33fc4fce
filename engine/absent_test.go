package engine_test

import (
	"testing"

	"github.com/runnerhq/runner/engine"
)

// TestAbsentOutputInPreview checks that an output a resource does not have
// reads as null in a preview as it does in up, not as unknown: otherwise
// the preview plans a change of its dependents that up does not make.
func TestAbsentOutputInPreview(t *testing.T) {
	e := newEnv(t)
	prog := func(ctx *engine.Context) error {
		a := ctx.Resource(typ, "a", engine.Inputs{"k": "v"})
		ctx.Resource(typ, "b", engine.Inputs{"fromA": a.Output("absent")})
		return nil
	}
	e.mustUp(prog)
	res, err := e.preview(prog)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 0 {
		t.Errorf("a preview with nothing changed plans %v", res.Steps)
	}
}
