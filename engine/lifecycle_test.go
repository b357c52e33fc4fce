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

func TestCustomTimeouts(t *testing.T) {
	e := newEnv(t)
	limits := engine.CustomTimeouts{Create: 50 * time.Millisecond, Update: 2 * time.Second, Delete: 3 * time.Second}
	var got []time.Duration
	e.plugin.OnCreate = func(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
		got = append(got, req.Timeout)
		if req.Inputs["hang"] == true {
			<-ctx.Done() // a hung plugin: only the engine's deadline ends it
			return resource.CreateResponse{}, ctx.Err()
		}
		return resource.CreateResponse{ID: "x1", Outputs: req.Inputs}, nil
	}
	e.plugin.OnDelete = func(_ context.Context, req resource.DeleteRequest) error {
		got = append(got, req.Timeout)
		return nil
	}
	prog := func(hang bool) engine.Program {
		return resources(map[string]engine.Inputs{"a": {"hang": hang}}, engine.Timeouts(limits))
	}
	start := time.Now()
	_, err := e.up(prog(true))
	if err == nil || !strings.Contains(err.Error(), "create of a timed out after 50ms (customTimeouts)") {
		t.Fatalf("error %v, want a timeout naming the resource", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the hung create ended after %s", d)
	}
	e.plugin.OnCreate = nil
	e.mustUp(prog(false))
	if r := e.find("a"); r.CustomTimeouts != state.CustomTimeouts(limits) {
		t.Errorf("recorded timeouts %+v, want %+v", r.CustomTimeouts, limits)
	}
	if _, err := engine.Destroy(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != limits.Create || got[1] != limits.Delete {
		t.Errorf("request timeouts %v, want create then delete bounds", got)
	}
}

func TestInitErrors(t *testing.T) {
	e := newEnv(t)
	fail := true
	e.plugin.OnCreate = func(_ context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
		return resource.CreateResponse{}, &resource.InitError{ID: "vm-1", Outputs: resource.PropertyMap{"ip": "10.0.0.1"}, Reasons: []string{"health check failed"}}
	}
	var updates int
	e.plugin.OnUpdate = func(_ context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
		updates++
		if fail {
			return resource.UpdateResponse{}, &resource.InitError{Outputs: req.OldOutputs, Reasons: []string{"still unhealthy"}}
		}
		return resource.UpdateResponse{Outputs: req.OldOutputs}, nil
	}
	prog := func(ctx *engine.Context) error {
		a := ctx.Resource(typ, "a", engine.Inputs{"size": 1})
		ctx.Resource(typ, "b", engine.Inputs{"from": a.Output("ip")})
		return nil
	}
	_, err := e.up(prog)
	if err == nil || !strings.Contains(err.Error(), "health check failed") {
		t.Fatalf("error %v, want the init error's reason", err)
	}
	a := e.find("a")
	if a == nil || a.ID != "vm-1" || a.Outputs["ip"] != "10.0.0.1" || strings.Join(a.InitErrors, ";") != "health check failed" {
		t.Fatalf("recorded %+v, want the resource with its ID, outputs and init errors", a)
	}
	if e.find("b") != nil {
		t.Errorf("b, which depends on the failed step, was created")
	}
	e.plugin.OnCreate = nil
	for _, want := range []struct {
		fail    bool
		errs    string
		updates int
	}{{fail: true, errs: "still unhealthy", updates: 1}, {fail: false, errs: "", updates: 2}} {
		fail = want.fail
		_, err := e.up(prog)
		if (err != nil) != want.fail {
			t.Fatalf("retry: error %v, want failure %v", err, want.fail)
		}
		if updates != want.updates || strings.Join(e.find("a").InitErrors, ";") != want.errs {
			t.Errorf("after retry: %d updates, init errors %v; want %d and %q", updates, e.find("a").InitErrors, want.updates, want.errs)
		}
	}
	if e.find("b") == nil {
		t.Errorf("b was not created once a initialized")
	}
	// A refresh whose Read reports an init error only warns.
	e.plugin.OnRead = func(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
		return resource.ReadResponse{}, &resource.InitError{ID: req.ID, Outputs: req.Outputs, Reasons: []string{"degraded"}}
	}
	e.events = nil
	if _, err := engine.Refresh(context.Background(), e.opts); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if e.find("a") == nil || !e.hasWarning("degraded") {
		t.Errorf("refresh dropped a, or did not warn")
	}
}

func (e *env) hasWarning(sub string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.events {
		if ev.Type == engine.EventDiagnostic && ev.Severity == engine.SeverityWarning && strings.Contains(ev.Message, sub) {
			return true
		}
	}
	return false
}

func TestImport(t *testing.T) {
	e := newEnv(t)
	e.plugin.Put("vpc-7", urn("net"), resource.PropertyMap{"cidr": "10.0.0.0/16"}, resource.PropertyMap{"cidr": "10.0.0.0/16", "arn": "arn:7"})
	var reads []resource.ReadRequest
	e.plugin.OnRead = nil
	prog := func(cidr string) engine.Program {
		return resources(map[string]engine.Inputs{"net": {"cidr": cidr}}, engine.Import("vpc-7"))
	}
	_, err := e.up(prog("10.1.0.0/16"))
	if err == nil || !strings.Contains(err.Error(), "differ") || !strings.Contains(err.Error(), "cidr") || e.find("net") != nil {
		t.Fatalf("import of a mismatching program: error %v, want one naming cidr", err)
	}
	pre, err := e.preview(prog("10.0.0.0/16"))
	if err != nil || pre.Changes[engine.OpImport] != 1 {
		t.Fatalf("preview: %v %v, want one import", pre, err)
	}
	e.plugin.OnRead = func(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
		reads = append(reads, req)
		e.plugin.OnRead = nil
		defer func() { e.plugin.OnRead = nil }()
		return e.plugin.Read(ctx, req)
	}
	e.opts.Plan = planRoundTrip(t, pre.Plan) // up executes the previewed import
	res := e.mustUp(prog("10.0.0.0/16"))
	e.opts.Plan = nil
	if res.Changes[engine.OpImport] != 1 || e.plugin.Count("Create") != 0 {
		t.Errorf("changes %v, %d creates; want one import and no create", res.Changes, e.plugin.Count("Create"))
	}
	if len(reads) != 1 || reads[0].ID != "vpc-7" || reads[0].Inputs != nil || reads[0].Outputs != nil {
		t.Errorf("import read %+v, want only the ID", reads)
	}
	r := e.find("net")
	if r == nil || r.ID != "vpc-7" || r.Outputs["arn"] != "arn:7" || r.ImportID != "vpc-7" {
		t.Fatalf("recorded %+v", r)
	}
	res = e.mustUp(prog("10.0.0.0/16"))
	if res.Changes[engine.OpSame] != 2 {
		t.Errorf("an imported resource in the state: changes %v, want same", res.Changes)
	}
}

func TestImportOfAMissingResource(t *testing.T) {
	e := newEnv(t)
	_, err := e.up(resources(map[string]engine.Inputs{"net": {}}, engine.Import("nope")))
	if err == nil || !strings.Contains(err.Error(), `no resource with ID "nope"`) {
		t.Fatalf("error %v", err)
	}
}

func TestNestedIgnoreChanges(t *testing.T) {
	e := newEnv(t)
	var updates []resource.UpdateRequest
	e.plugin.OnUpdate = func(_ context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
		updates = append(updates, req)
		return resource.UpdateResponse{Outputs: req.NewInputs}, nil
	}
	ignore := engine.IgnoreChanges("tags.Name", "rules[0].port", `["a.b"]`)
	prog := func(name string, port, ab int) engine.Program {
		return resources(map[string]engine.Inputs{"a": {
			"tags":  map[string]any{"Name": name, "env": "dev"},
			"rules": []any{map[string]any{"port": port}},
			"a.b":   ab,
		}}, ignore)
	}
	e.mustUp(prog("one", 80, 1))
	res := e.mustUp(prog("two", 81, 2))
	if res.Changes[engine.OpSame] != 2 || len(updates) != 0 {
		t.Fatalf("changes %v, want the ignored changes to change nothing", res.Changes)
	}
	e.mustUp(resources(map[string]engine.Inputs{"a": {
		"tags": map[string]any{"Name": "three", "env": "prod"}, "rules": []any{map[string]any{"port": 82}},
	}}, ignore))
	if len(updates) != 1 || strings.Join(updates[0].IgnoreChanges, " ") != `tags.Name rules[0].port ["a.b"]` {
		t.Fatalf("updates %+v, want one with the ignored paths", updates)
	}
	in := e.find("a").Inputs
	if tags := in["tags"].(map[string]any); tags["Name"] != "one" || tags["env"] != "prod" || in["a.b"] != 1.0 {
		t.Errorf("inputs %v: want Name and a.b kept, env changed", in)
	}
	if _, err := e.up(resources(map[string]engine.Inputs{"a": {}}, engine.IgnoreChanges("tags[x]"))); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a malformed path: error %v", err)
	}
}

func TestDeleteBeforeReplaceDependents(t *testing.T) {
	e := newEnv(t)
	e.plugin.ReplaceKeys = []string{"zone"}
	e.plugin.DeleteBeforeReplace = true
	prog := func(zone string) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Resource(typ, "a", engine.Inputs{"zone": zone})
			b := ctx.Resource(typ, "b", engine.Inputs{"from": a.Output("id")})
			ctx.Resource(typ, "c", engine.Inputs{"from": b.Output("id")})
			ctx.Resource(typ, "free", engine.Inputs{})
			return nil
		}
	}
	e.mustUp(prog("z1"))
	before := len(e.plugin.Calls())
	order := func() (dels, creates string) {
		var d, c []string
		for _, call := range e.plugin.Calls()[before:] {
			switch {
			case call.Preview:
			case call.Method == "Delete":
				d = append(d, call.URN.Name())
			case call.Method == "Create":
				c = append(c, call.URN.Name())
			}
		}
		return strings.Join(d, ","), strings.Join(c, ",")
	}
	pre, err := e.preview(prog("z2"))
	if err != nil || pre.Changes[engine.OpReplace] != 3 {
		t.Fatalf("preview: %v, changes %v; want a, b and c replaced", err, pre.Changes)
	}
	// b's create fails: c, b and a are gone, a is recreated, the state is valid.
	e.plugin.OnCreate = func(_ context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
		if req.URN == urn("b") && !req.Preview {
			return resource.CreateResponse{}, errors.New("quota exceeded")
		}
		return resource.CreateResponse{ID: req.URN.Name() + "-2", Outputs: resource.PropertyMap{"id": req.URN.Name() + "-2"}}, nil
	}
	if _, err := e.up(prog("z2")); err == nil || !strings.Contains(err.Error(), "quota") {
		t.Fatalf("error %v", err)
	}
	if dels, creates := order(); dels != "c,b,a" || creates != "a,b" {
		t.Errorf("deletes %s, creates %s; want c,b,a then a,b", dels, creates)
	}
	checkOrder(t, e.snap())
	if e.find("a") == nil || e.find("b") != nil || e.find("c") != nil || e.find("free") == nil {
		t.Fatalf("state after the failure: %v", e.snap().Resources)
	}
	e.plugin.OnCreate = nil
	before = len(e.plugin.Calls())
	e.mustUp(prog("z2"))
	if dels, creates := order(); dels != "" || creates != "b,c" {
		t.Errorf("second up: deletes %q, creates %s; want b,c created", dels, creates)
	}
	checkOrder(t, e.snap())
	before = len(e.plugin.Calls())
	res := e.mustUp(prog("z3"))
	if dels, creates := order(); dels != "c,b,a" || creates != "a,b,c" || res.Changes[engine.OpReplace] != 3 {
		t.Errorf("deletes %s, creates %s, changes %v; want c,b,a then a,b,c", dels, creates, res.Changes)
	}
	checkOrder(t, e.snap())
	if len(e.snap().Resources) != 6 {
		t.Errorf("state holds %d resources, want 6", len(e.snap().Resources))
	}
}
