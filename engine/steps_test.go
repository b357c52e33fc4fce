package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

func TestReplaceOrder(t *testing.T) {
	tests := []struct {
		name        string
		pluginDBR   bool
		optionDBR   bool
		deleteFirst bool
	}{
		{name: "create before delete"},
		{name: "plugin asks delete before replace", pluginDBR: true, deleteFirst: true},
		{name: "option asks delete before replace", optionDBR: true, deleteFirst: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.plugin.ReplaceKeys = []string{"zone"}
			e.plugin.DeleteBeforeReplace = tt.pluginDBR
			var opts []engine.ResourceOption
			if tt.optionDBR { // an explicit false would override the plugin
				opts = append(opts, engine.DeleteBeforeReplace(true))
			}
			prog := func(zone string) engine.Program {
				return func(ctx *engine.Context) error {
					a := ctx.Resource(typ, "a", engine.Inputs{"zone": zone}, opts...)
					ctx.Resource(typ, "b", engine.Inputs{"from": a.Output("result")})
					return nil
				}
			}
			e.mustUp(prog("z1"))
			oldID := e.find("a").ID
			res := e.mustUp(prog("z2"))
			switch {
			case tt.deleteFirst && res.Changes[engine.OpReplace] != 2:
				t.Errorf("changes %v, want two replaces (b, which depends on a, is replaced along)", res.Changes)
			case !tt.deleteFirst && (res.Changes[engine.OpReplace] != 1 || res.Changes[engine.OpUpdate] != 1):
				t.Errorf("changes %v, want one replace and one update (b follows a's new result)", res.Changes)
			}
			var order []string
			for _, c := range e.plugin.Calls() {
				if c.URN == urn("a") && (c.Method == "Create" || c.Method == "Delete") && !c.Preview {
					order = append(order, c.Method)
				}
			}
			want := "Create,Create,Delete"
			if tt.deleteFirst {
				want = "Create,Delete,Create"
			}
			if got := strings.Join(order, ","); got != want {
				t.Errorf("calls on a: %s, want %s", got, want)
			}
			snap := e.snap()
			checkOrder(t, snap)
			for _, r := range snap.Resources {
				if r.ID == oldID || r.Delete {
					t.Errorf("old a still in state: %+v", r)
				}
			}
			if e.find("a").Inputs["zone"] != "z2" || e.find("b").Inputs["from"] != e.find("a").Outputs["result"] {
				t.Errorf("state after replace: a=%v b=%v", e.find("a").Inputs, e.find("b").Inputs)
			}
		})
	}
}

func TestProtect(t *testing.T) {
	e := newEnv(t)
	e.plugin.ReplaceKeys = []string{"zone"}
	decl := func(zone string, protect bool, present bool) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Resource(typ, "free", engine.Inputs{})
			if present {
				ctx.Resource(typ, "db", engine.Inputs{"zone": zone}, engine.Protect(protect))
			}
			return nil
		}
	}
	e.mustUp(decl("z1", true, true))
	cases := []struct {
		name string
		run  func() error
		word string
	}{
		{"replace", func() error { _, err := e.up(decl("z2", true, true)); return err }, "replace"},
		{"delete", func() error { _, err := e.up(decl("z1", true, false)); return err }, "delete"},
		{"destroy", func() error { _, err := engine.Destroy(t.Context(), e.opts); return err }, "delete"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || !contains(err.Error(), "protected") || !contains(err.Error(), "db") || !contains(err.Error(), "Protect(false)") {
			t.Errorf("%s of a protected resource: error %v; want a refusal naming db and how to unprotect", c.name, err)
		}
		if e.plugin.Count("Delete") != 0 || e.find("db") == nil {
			t.Errorf("%s: the protected resource was deleted", c.name)
		}
	}
	e.mustUp(decl("z1", false, true))
	if _, err := engine.Destroy(t.Context(), e.opts); err != nil {
		t.Errorf("destroy after unprotecting: %v", err)
	}
}

func TestIgnoreChangesAndDependsOn(t *testing.T) {
	e := newEnv(t)
	prog := func(tag string) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Resource(typ, "a", engine.Inputs{"tag": tag, "k": 1}, engine.IgnoreChanges("tag"))
			ctx.Resource(typ, "b", engine.Inputs{}, engine.DependsOn(a))
			return nil
		}
	}
	e.plugin.Latency = 20 * time.Millisecond
	e.mustUp(prog("one"))
	creates := e.plugin.CallsOf("Create")
	if len(creates) != 2 || creates[0].URN != urn("a") || creates[1].Start.Before(creates[0].End) {
		t.Errorf("b did not wait for a: %+v", creates)
	}
	if deps := e.find("b").Dependencies; len(deps) != 1 || deps[0] != urn("a") {
		t.Errorf("b.Dependencies = %v", deps)
	}
	res := e.mustUp(prog("two"))
	if res.Changes[engine.OpUpdate] != 0 || e.find("a").Inputs["tag"] != "one" {
		t.Errorf("an ignored change caused %v; tag now %v", res.Changes, e.find("a").Inputs["tag"])
	}
}

func TestFailureStopsDependents(t *testing.T) {
	e := newEnv(t)
	e.plugin.OnCreate = func(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
		if req.URN.Name() == "bad" && !req.Preview {
			time.Sleep(30 * time.Millisecond)
			return resource.CreateResponse{}, errors.New("quota exceeded")
		}
		return resource.CreateResponse{ID: req.URN.Name() + "-id", Outputs: resource.PropertyMap{"result": "r"}}, nil
	}
	res, err := e.up(func(ctx *engine.Context) error {
		bad := ctx.Resource(typ, "bad", engine.Inputs{})
		ctx.Resource(typ, "child", engine.Inputs{"x": bad.Output("result")})
		ctx.Resource(typ, "independent", engine.Inputs{})
		return nil
	})
	if err == nil || !contains(err.Error(), `"bad"`) || !contains(err.Error(), "quota exceeded") {
		t.Fatalf("error %v does not name the failed resource and cause", err)
	}
	for _, c := range e.plugin.Calls() {
		if c.URN == urn("child") {
			t.Errorf("child of the failed resource was attempted: %+v", c)
		}
	}
	if e.find("independent") == nil || e.find("bad") != nil || e.find("child") != nil {
		t.Errorf("state after failure: independent=%v bad=%v child=%v", e.find("independent"), e.find("bad"), e.find("child"))
	}
	if res == nil || res.Changes[engine.OpCreate] != 2 { // root and independent
		t.Errorf("result after failure: %+v", res)
	}
	if h := e.backend.Records(project, stack); len(h) != 1 || h[0].Result != "failed" {
		t.Errorf("history %+v", h)
	}
	if !e.hasEvent(engine.EventStepFailed, urn("bad")) {
		t.Errorf("no step-failed event for bad")
	}
}

func (e *env) hasEvent(typ string, u resource.URN) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.events {
		if ev.Type == typ && ev.URN == u {
			return true
		}
	}
	return false
}

func TestCancellation(t *testing.T) {
	e := newEnv(t)
	e.plugin.Latency = 50 * time.Millisecond
	e.opts.Parallel = 2
	ctx, cancel := context.WithCancel(t.Context())
	e.plugin.OnCreate = func(_ context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
		cancel()
		return resource.CreateResponse{ID: req.URN.Name(), Outputs: resource.PropertyMap{}}, nil
	}
	prog := func(ctx *engine.Context) error {
		for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
			ctx.Resource(typ, n, engine.Inputs{})
		}
		return nil
	}
	_, err := engine.Up(ctx, e.opts, prog)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	created := e.plugin.Count("Create")
	if created == 0 || created == 6 {
		t.Errorf("%d creates; want those in flight to finish and no more to start", created)
	}
	snap := e.snap()
	n := 0
	for _, r := range snap.Resources {
		if r.Type == typ {
			n++
		}
	}
	if n != created || len(snap.PendingOperations) != 0 {
		t.Errorf("state holds %d resources (%d pending) after %d creates", n, len(snap.PendingOperations), created)
	}
	e.plugin.OnCreate = nil
	res := e.mustUp(prog)
	if res.Changes[engine.OpCreate] != 6-created {
		t.Errorf("the next up made %v", res.Changes)
	}
}

func TestParallelismBound(t *testing.T) {
	for _, bound := range []int{1, 3} {
		e := newEnv(t)
		e.plugin.Latency = 10 * time.Millisecond
		e.opts.Parallel = bound
		e.mustUp(func(ctx *engine.Context) error {
			for i := 0; i < 12; i++ {
				ctx.Resource(typ, string(rune('a'+i)), engine.Inputs{})
			}
			return nil
		})
		if got := e.plugin.MaxConcurrent(); got != bound {
			t.Errorf("bound %d: %d steps ran at once", bound, got)
		}
		e.plugin.ResetMaxConcurrent()
		if _, err := engine.Destroy(t.Context(), e.opts); err != nil {
			t.Fatal(err)
		}
		if got := e.plugin.MaxConcurrent(); got != bound {
			t.Errorf("destroy with bound %d: %d independent deletes ran at once", bound, got)
		}
	}
}

func TestRetainOnDeleteAndComponents(t *testing.T) {
	e := newEnv(t)
	e.mustUp(func(ctx *engine.Context) error {
		group := ctx.Component("my:group:Group", "g")
		ctx.Resource(typ, "kept", engine.Inputs{}, engine.Parent(group), engine.RetainOnDelete(true))
		ctx.Resource(typ, "child", engine.Inputs{}, engine.Parent(group))
		return nil
	})
	kept := resource.NewURN(stack, project, "my:group:Group", typ, "kept")
	if !strings.Contains(string(kept), "my:group:Group$test:index:Resource") || e.find("kept") == nil || e.find("kept").URN != kept {
		t.Fatalf("child URN %s not in state", kept)
	}
	checkOrder(t, e.snap())
	res := e.mustUp(func(ctx *engine.Context) error { return nil })
	if res.Changes[engine.OpDelete] != 3 {
		t.Errorf("changes %v, want group and both children deleted", res.Changes)
	}
	if !e.plugin.Exists(kept) || e.plugin.Exists(resource.NewURN(stack, project, "my:group:Group", typ, "child")) {
		t.Errorf("retainOnDelete: kept exists=%v", e.plugin.Exists(kept))
	}
}

func TestRefresh(t *testing.T) {
	e := newEnv(t)
	e.mustUp(resources(map[string]engine.Inputs{"a": {"k": 1}, "b": {}, "c": {}}))
	e.plugin.SetOutput(urn("a"), "k", 2.0)
	e.plugin.Forget(urn("b"))
	res, err := engine.Refresh(t.Context(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[engine.Op]int{engine.OpUpdate: 1, engine.OpDelete: 1, engine.OpSame: 1}
	if !equalChanges(res.Changes, want) {
		t.Errorf("changes %v, want %v", res.Changes, want)
	}
	if e.find("a").Outputs["k"] != 2.0 || e.find("b") != nil || e.find("c") == nil {
		t.Errorf("state after refresh wrong")
	}
}

func TestDeleteBeforeReplaceFailureKeepsStateValid(t *testing.T) {
	e := newEnv(t)
	e.plugin.ReplaceKeys = []string{"zone"}
	e.plugin.DeleteBeforeReplace = true
	prog := func(zone string) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Resource(typ, "a", engine.Inputs{"zone": zone})
			ctx.Resource(typ, "b", engine.Inputs{"from": a.Output("id")})
			return nil
		}
	}
	e.mustUp(prog("z1"))
	e.plugin.OnCreate = func(context.Context, resource.CreateRequest) (resource.CreateResponse, error) {
		return resource.CreateResponse{}, errors.New("no capacity in z2")
	}
	if _, err := e.up(prog("z2")); err == nil || !contains(err.Error(), "no capacity") {
		t.Fatalf("error %v", err)
	}
	if e.find("a") != nil || e.find("b") != nil {
		t.Fatalf("a and b (replaced along with a, which it depends on) should be gone: deleted before a's replacement failed")
	}
	checkOrder(t, e.snap())
	e.plugin.OnCreate = nil
	e.mustUp(prog("z2"))
	checkOrder(t, e.snap())
	if e.find("a") == nil || e.find("a").Inputs["zone"] != "z2" || e.find("b") == nil {
		t.Errorf("a and b were not recreated")
	}
}

func TestPendingDeleteAndNeverDeployed(t *testing.T) {
	e := newEnv(t)
	res, err := engine.Destroy(t.Context(), e.opts)
	if err != nil || len(res.Changes) != 0 || e.snap() != nil {
		t.Fatalf("destroy of a project never deployed: %v %v", res, err)
	}
	e.mustUp(resources(map[string]engine.Inputs{"a": {}, "b": {}}))
	snap := e.snap()
	a := e.find("a")
	snap.PendingOperations = []state.PendingOperation{{Type: state.OperationDeleting, Resource: a}}
	e.backend.Put(project, stack, snap)
	e.plugin.Forget(a.URN) // the interrupted delete did happen
	res = e.mustUp(resources(map[string]engine.Inputs{"b": {}}))
	if e.plugin.Count("Delete") != 0 || res.Changes[engine.OpDelete] != 0 || e.find("a") != nil {
		t.Errorf("after a finished pending delete: %d deletes, changes %v", e.plugin.Count("Delete"), res.Changes)
	}
}

func TestDependsOnComponentAndStructuredExports(t *testing.T) {
	e := newEnv(t)
	e.plugin.Latency = 15 * time.Millisecond
	res := e.mustUp(func(ctx *engine.Context) error {
		group := ctx.Component("my:group:Group", "g")
		inner := ctx.Resource(typ, "inner", engine.Inputs{}, engine.Parent(group))
		ctx.Resource(typ, "after", engine.Inputs{}, engine.DependsOn(group))
		ctx.Export("info", engine.Inputs{"id": inner.ID(), "list": []any{inner.Output("result"), 1}})
		return nil
	})
	creates := e.plugin.CallsOf("Create")
	if len(creates) != 2 || creates[1].URN != urn("after") || creates[1].Start.Before(creates[0].End) {
		t.Errorf("after did not wait for the component's child: %+v", creates)
	}
	info, _ := res.Outputs["info"].(map[string]any)
	list, _ := info["list"].([]any)
	if info["id"] == nil || len(list) != 2 || list[1] != 1.0 {
		t.Errorf("structured export %#v", res.Outputs["info"])
	}
}

func TestUpWithRefresh(t *testing.T) {
	e := newEnv(t)
	prog := resources(map[string]engine.Inputs{"a": {}, "b": {}})
	e.mustUp(prog)
	e.plugin.Forget(urn("a"))
	if res := e.mustUp(prog); res.Changes[engine.OpCreate] != 0 {
		t.Fatalf("without refresh the engine noticed: %v", res.Changes)
	}
	e.opts.Refresh = true
	res, err := e.preview(prog)
	if err != nil || res.Changes[engine.OpCreate] != 1 || e.plugin.Exists(urn("a")) {
		t.Fatalf("preview with refresh: %v %v", res.Changes, err)
	}
	res = e.mustUp(prog)
	if res.Changes[engine.OpCreate] != 1 || !e.plugin.Exists(urn("a")) || len(e.snap().Resources) != 4 {
		t.Errorf("up with refresh: %v", res.Changes)
	}
}
