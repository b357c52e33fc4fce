package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

func TestPreviewHasNoSideEffects(t *testing.T) {
	e := newEnv(t)
	applied := 0
	prog := func(size string) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Resource(typ, "a", engine.Inputs{"size": size})
			derived := a.Output("result").Apply(func(v any) (any, error) {
				applied++
				return "prefix-" + v.(string), nil
			})
			ctx.Resource(typ, "b", engine.Inputs{"from": derived})
			ctx.Export("derived", derived)
			ctx.Export("size", a.Output("size"))
			return nil
		}
	}
	res, err := e.preview(prog("s"))
	if err != nil {
		t.Fatal(err)
	}
	if e.snap() != nil || len(e.plugin.URNs()) != 0 || len(e.backend.Entries(project, stack)) != 0 {
		t.Fatalf("preview changed the world or the state")
	}
	for _, c := range e.plugin.Calls() {
		if (c.Method == "Create" || c.Method == "Update") && !c.Preview || c.Method == "Delete" {
			t.Errorf("preview made a real %s call", c.Method)
		}
	}
	if applied != 0 {
		t.Errorf("Apply ran %d times on an unknown value", applied)
	}
	if _, ok := res.Outputs["derived"].(resource.Computed); !ok || res.Outputs["size"] != "s" {
		t.Errorf("preview outputs %v; want derived unknown and size known", res.Outputs)
	}
	if res.Changes[engine.OpCreate] != 3 || len(res.Steps) != 3 {
		t.Errorf("plan %v %+v", res.Changes, res.Steps)
	}
	e.mustUp(prog("s"))
	if applied != 1 || e.find("b").Inputs["from"] != "prefix-"+e.find("a").Outputs["result"].(string) {
		t.Errorf("up: applied %d, b.from %v", applied, e.find("b").Inputs["from"])
	}
	before := len(e.plugin.Calls())
	res, err = e.preview(prog("m"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes[engine.OpUpdate] != 1 || len(res.Steps) != 1 || res.Steps[0].URN != urn("a") || strings.Join(res.Steps[0].Keys, ",") != "size" {
		t.Errorf("preview of a change: %v %+v", res.Changes, res.Steps)
	}
	for _, c := range e.plugin.Calls()[before:] {
		if !c.Preview && (c.Method == "Create" || c.Method == "Update" || c.Method == "Delete") {
			t.Errorf("preview made a real %s call", c.Method)
		}
	}
	if e.find("a").Inputs["size"] != "s" {
		t.Errorf("preview changed the state")
	}
}

func TestSecrets(t *testing.T) {
	e := newEnv(t)
	e.opts.Config = map[string]any{"proj:password": resource.Secret{Element: "hunter22"}, "proj:plain": "p"}
	e.plugin.OnCheck = func(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
		if req.URN.Name() == "fails" {
			pw, _ := req.News.String("pw", "")
			return nil, fmt.Errorf("bad password %s", pw)
		}
		return req.News, nil
	}
	prog := func(ctx *engine.Context) error {
		pw, ok := ctx.Config("password")
		if !ok {
			return fmt.Errorf("no password")
		}
		plain, _ := ctx.Config("plain")
		upper := pw.Apply(func(v any) (any, error) { return strings.ToUpper(v.(string)), nil })
		a := ctx.Resource(typ, "a", engine.Inputs{"pw": upper, "plain": plain}, engine.AdditionalSecretOutputs("result"))
		ctx.Export("pw", a.Output("pw"))
		ctx.Export("result", a.Output("result"))
		ctx.Export("plain", a.Output("plain"))
		ctx.Export("both", engine.All(plain, upper))
		ctx.Log("password is %v", upper)
		return nil
	}
	res := e.mustUp(prog)
	a := e.find("a")
	if s, ok := a.Inputs["pw"].(resource.Secret); !ok || s.Element != "HUNTER22" {
		t.Errorf("input pw = %#v, want a secret", a.Inputs["pw"])
	}
	for _, k := range []string{"pw", "result"} {
		if !a.Outputs.IsSecret(k) || !res.Outputs.IsSecret(k) {
			t.Errorf("output %s is not secret: state %v, stack %v", k, a.Outputs[k], res.Outputs[k])
		}
	}
	if res.Outputs.IsSecret("plain") || !res.Outputs.IsSecret("both") {
		t.Errorf("stack outputs %v", res.Outputs)
	}
	_, err := e.up(func(ctx *engine.Context) error {
		pw, _ := ctx.Config("password")
		ctx.Resource(typ, "fails", engine.Inputs{"pw": pw})
		return nil
	})
	if err == nil || strings.Contains(err.Error(), "hunter22") || !strings.Contains(err.Error(), "[secret]") {
		t.Errorf("error %v leaks the secret or lost the message", err)
	}
	data, _ := json.Marshal(e.events)
	if strings.Contains(strings.ToLower(string(data)), "hunter22") {
		t.Errorf("events leak a secret: %s", data)
	}
}

func TestStackReferences(t *testing.T) {
	e := newEnv(t)
	consumer := func(ctx *engine.Context) error {
		net := ctx.StackReference("network")
		ctx.Resource(typ, "app", engine.Inputs{"host": net.Output("host"), "token": net.Output("token")})
		ctx.Export("host", net.Output("host"))
		return nil
	}
	res, err := e.preview(consumer)
	if err != nil {
		t.Fatalf("preview with an undeployed reference: %v", err)
	}
	if _, ok := res.Outputs["host"].(resource.Computed); !ok {
		t.Errorf("host = %v, want unknown", res.Outputs["host"])
	}
	if _, err := e.up(consumer); err == nil || !contains(err.Error(), "project network has no state on stack dev; deploy it first") {
		t.Errorf("up with an undeployed reference: %v", err)
	}
	producer := e.opts
	producer.Project = "network"
	_, err = engine.Up(t.Context(), producer, func(ctx *engine.Context) error {
		ctx.Export("host", "10.0.0.1")
		ctx.Export("token", engine.Secret("tok-123"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res = e.mustUp(consumer)
	app := e.find("app")
	if res.Outputs["host"] != "10.0.0.1" || app.Inputs["host"] != "10.0.0.1" || !app.Inputs.IsSecret("token") || !app.Outputs.IsSecret("token") {
		t.Errorf("app inputs %v outputs %v", app.Inputs, app.Outputs)
	}
}

func TestPendingCreateRecovery(t *testing.T) {
	pending := func() *state.Snapshot {
		return &state.Snapshot{PendingOperations: []state.PendingOperation{{
			Type:     state.OperationCreating,
			Resource: &state.Resource{URN: urn("a"), Custom: true, Type: typ, Inputs: resource.PropertyMap{"k": "v"}},
		}}}
	}
	prog := resources(map[string]engine.Inputs{"a": {"k": "v"}})
	t.Run("recognised", func(t *testing.T) {
		e := newEnv(t)
		// The interrupted create happened: the plugin holds the resource.
		if _, err := e.plugin.Create(t.Context(), resource.CreateRequest{URN: urn("a"), Type: typ, Inputs: resource.PropertyMap{"k": "v"}}); err != nil {
			t.Fatal(err)
		}
		e.backend.Put(project, stack, pending())
		if _, err := e.preview(prog); err != nil || !e.hasEvent(engine.EventPendingOperation, urn("a")) {
			t.Errorf("preview: %v; pending operation reported: %v", err, e.hasEvent(engine.EventPendingOperation, urn("a")))
		}
		if len(e.snap().PendingOperations) != 1 {
			t.Errorf("preview resolved the pending operation")
		}
		res := e.mustUp(prog)
		if e.plugin.Count("Create") != 1 || res.Changes[engine.OpSame] < 1 || e.find("a") == nil || e.find("a").ID == "" {
			t.Errorf("adopt: %d creates, changes %v", e.plugin.Count("Create"), res.Changes)
		}
		if len(e.snap().PendingOperations) != 0 {
			t.Errorf("pending operation kept")
		}
	})
	t.Run("not recognisable", func(t *testing.T) {
		e := newEnv(t)
		e.plugin.OnRead = func(context.Context, resource.ReadRequest) (resource.ReadResponse, error) {
			return resource.ReadResponse{}, resource.ErrNotRecognizable
		}
		e.backend.Put(project, stack, pending())
		// A preview (which may run while an up is creating the resource)
		// plans on, warning that up must resolve it first.
		if _, err := e.preview(prog); err != nil || !e.hasEvent(engine.EventPendingOperation, urn("a")) {
			t.Errorf("preview of an unresolvable pending create: %v", err)
		}
		_, err := e.up(prog)
		if err == nil || !contains(err.Error(), `test:index:Resource "a"`) || !contains(err.Error(), "run `runner stack repair`") {
			t.Fatalf("error %v", err)
		}
		if e.plugin.Count("Create") != 0 || len(e.snap().PendingOperations) != 1 {
			t.Errorf("the engine went on after an unresolvable pending create")
		}
	})
	t.Run("not recognisable, in progress", func(t *testing.T) {
		// A preview beside the run making the resource (it holds the
		// project's lock) tells nobody to delete it by hand.
		e := newEnv(t)
		e.plugin.OnRead = func(context.Context, resource.ReadRequest) (resource.ReadResponse, error) {
			return resource.ReadResponse{}, resource.ErrNotRecognizable
		}
		e.backend.Put(project, stack, pending())
		lock, err := e.backend.Lock(t.Context(), project, stack, backend.CurrentLockInfo("runner up"))
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Unlock()
		if _, err := e.preview(prog); err != nil {
			t.Fatal(err)
		}
		for _, ev := range e.events {
			if contains(ev.Message, "by hand") || contains(ev.Message, "interrupted") || contains(ev.Message, "stack repair") {
				t.Errorf("a preview beside the run in progress says: %s", ev.Message)
			}
		}
	})
	t.Run("journal left by a crash", func(t *testing.T) {
		e := newEnv(t)
		e.mustUp(resources(map[string]engine.Inputs{"a": {"k": "v"}}))
		j, err := e.backend.OpenJournal(t.Context(), project, stack, e.snap(), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = j.Begin(t.Context(), backendEntry(urn("b")))
		_, _ = e.plugin.Create(t.Context(), resource.CreateRequest{URN: urn("b"), Type: typ, Inputs: resource.PropertyMap{}})
		res := e.mustUp(resources(map[string]engine.Inputs{"a": {"k": "v"}, "b": {}}))
		if e.plugin.Count("Create") != 2 || res.Changes[engine.OpCreate] != 0 {
			t.Errorf("b created twice: %d creates, changes %v", e.plugin.Count("Create"), res.Changes)
		}
	})
}
