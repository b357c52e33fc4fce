package engine_test

import (
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

func TestUpLifecycle(t *testing.T) {
	e := newEnv(t)
	prog := func(size string, extra bool) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Resource(typ, "a", engine.Inputs{"size": size})
			ctx.Resource(typ, "b", engine.Inputs{"from": a.Output("result")})
			if extra {
				ctx.Resource(typ, "c", engine.Inputs{"x": 1})
			}
			ctx.Export("a", a.Output("result"))
			return nil
		}
	}
	steps := []struct {
		name    string
		prog    engine.Program
		changes map[engine.Op]int
	}{
		{"create", prog("s", true), map[engine.Op]int{engine.OpCreate: 4}},
		{"no-op", prog("s", true), map[engine.Op]int{engine.OpSame: 4}},
		{"update", prog("m", true), map[engine.Op]int{engine.OpSame: 3, engine.OpUpdate: 1}},
		{"delete one", prog("m", false), map[engine.Op]int{engine.OpSame: 3, engine.OpDelete: 1}},
	}
	for _, s := range steps {
		res, err := e.up(s.prog)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !equalChanges(res.Changes, s.changes) {
			t.Fatalf("%s: changes %v, want %v", s.name, res.Changes, s.changes)
		}
		checkOrder(t, e.snap())
	}
	if got := e.find("a").Inputs["size"]; got != "m" {
		t.Errorf("a.size = %v, want m", got)
	}
	if e.find("c") != nil || e.plugin.Exists(urn("c")) {
		t.Errorf("c still exists after it was removed from the program")
	}
	if got := e.find("b").Inputs["from"]; got != e.find("a").Outputs["result"] {
		t.Errorf("b.from = %v, want a's result", got)
	}
	res, err := engine.Destroy(t.Context(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes[engine.OpDelete] != 3 || len(e.snap().Resources) != 0 || len(e.plugin.URNs()) != 0 {
		t.Errorf("destroy: changes %v, %d resources left in state, %d in plugin", res.Changes, len(e.snap().Resources), len(e.plugin.URNs()))
	}
	dels := e.plugin.CallsOf("Delete")
	if len(dels) != 3 || dels[0].URN != urn("c") && dels[0].URN != urn("b") {
		t.Errorf("deletes %v", dels)
	}
	// b depends on a: b's delete ends before a's starts.
	var bEnd, aStart int64
	for _, c := range dels {
		switch c.URN {
		case urn("a"):
			aStart = c.Start.UnixNano()
		case urn("b"):
			bEnd = c.End.UnixNano()
		}
	}
	if bEnd > aStart {
		t.Errorf("a was deleted before b, which depends on it")
	}
}

func equalChanges(a, b map[engine.Op]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

func TestStateLayout(t *testing.T) {
	e := newEnv(t)
	prog := resources(map[string]engine.Inputs{"a": {"k": "v"}})
	e.mustUp(prog)
	snap := e.snap()
	if len(snap.Resources) != 3 {
		t.Fatalf("%d resources, want root, provider, a", len(snap.Resources))
	}
	root, prov, a := snap.Resources[0], snap.Resources[1], snap.Resources[2]
	if root.URN != "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev" || root.Custom {
		t.Errorf("root = %s custom=%v", root.URN, root.Custom)
	}
	if prov.URN != "urn:pulumi:dev::proj::pulumi:providers:test::default" || !prov.Custom || prov.ID == "" {
		t.Errorf("provider = %s custom=%v id=%q", prov.URN, prov.Custom, prov.ID)
	}
	if a.Provider != string(prov.URN)+"::"+prov.ID || a.Parent != root.URN {
		t.Errorf("a.Provider = %q, a.Parent = %q", a.Provider, a.Parent)
	}
	e.mustUp(prog)
	if id := e.snap().Resources[1].ID; id != prov.ID {
		t.Errorf("provider ID changed from %s to %s", prov.ID, id)
	}
	// The second up changed nothing: the project's history keeps the
	// first only (a no-op run is recorded for the stack, by runner).
	if h := e.backend.Records(project, stack); len(h) != 1 || h[0].Kind != "update" || h[0].Result != "succeeded" || h[0].Changes["create"] != 2 {
		t.Errorf("history %+v", h)
	}
}

func TestMissingPlugin(t *testing.T) {
	e := newEnv(t)
	_, err := e.up(func(ctx *engine.Context) error {
		ctx.Resource("aws:s3:Bucket", "b", nil)
		return nil
	})
	if err == nil || !contains(err.Error(), "aws:s3:Bucket") {
		t.Fatalf("error %v does not name the type", err)
	}
	_ = resource.Computed{}
}
