package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// explicitProgram declares the explicit provider "cluster" of package test
// with inputs in, and a and b using it.
func explicitProgram(in engine.Inputs) engine.Program {
	return func(ctx *engine.Context) error {
		p := ctx.Resource(providerType, "cluster", in)
		ctx.Resource(typ, "a", engine.Inputs{"n": 1}, engine.Provider(p))
		ctx.Resource(typ, "b", engine.Inputs{"n": 2}, engine.Provider(p))
		return nil
	}
}

// explicitRecord returns the live record of the explicit provider.
func (e *env) explicitRecord() *state.Resource {
	e.t.Helper()
	p := e.find("cluster")
	if p == nil || p.Type != providerType {
		e.t.Fatalf("no explicit provider record: %+v", p)
	}
	return p
}

func TestExplicitProviderCreate(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.mustUp(explicitProgram(engine.Inputs{"region": "north"}))
	p := e.explicitRecord()
	if len(p.ID) != 36 || p.Parent != resource.RootURN(project, stack) {
		t.Errorf("provider id %q parent %q", p.ID, p.Parent)
	}
	want := map[string]any{"region": "north", "version": "1.2.3"}
	if !resource.DeepEqual(map[string]any(p.Inputs), want) || !resource.DeepEqual(map[string]any(p.Outputs), want) {
		t.Errorf("provider inputs %v outputs %v, want %v", p.Inputs, p.Outputs, want)
	}
	for _, r := range e.snap().Resources {
		if strings.HasPrefix(r.URN.Name(), "default") {
			t.Errorf("a default provider %s was made", r.URN)
		}
	}
	confs := prov.Configurations()
	if len(confs) != 1 || confs[0].Request.URN != p.URN || confs[0].Request.ID != p.ID || confs[0].Request.Inputs["region"] != "north" {
		t.Fatalf("configurations %+v", confs)
	}
	if confs[0].Calls() < 4 {
		t.Errorf("the explicit provider's plugin served %d calls", confs[0].Calls())
	}
	for _, name := range []string{"a", "b"} {
		if got := e.find(name).Provider; got != string(p.URN)+"::"+p.ID {
			t.Errorf("%s provider = %q", name, got)
		}
	}
	checkOrder(t, e.snap())

	// A second run changes nothing.
	n := len(e.backend.Entries(project, stack))
	prov.Reset()
	res := e.mustUp(explicitProgram(engine.Inputs{"region": "north"}))
	if got := len(e.backend.Entries(project, stack)); got != n || res.Changes[engine.OpSame] != 3 {
		t.Errorf("second up: %d journal entries (was %d), changes %v", got, n, res.Changes)
	}
	if e.explicitRecord().ID != p.ID || len(prov.DiffConfigs()) != 1 {
		t.Errorf("second up: provider id %s, %d DiffConfig calls", e.explicitRecord().ID, len(prov.DiffConfigs()))
	}
}

func TestExplicitProviderChanges(t *testing.T) {
	tests := []struct {
		name    string
		replace bool
	}{{"update", false}, {"replace", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, prov := newProviderEnv(t)
			if tt.replace {
				prov.ReplaceKeys = []string{"region"}
			}
			e.mustUp(explicitProgram(engine.Inputs{"region": "eu"}))
			before := e.explicitRecord()
			prov.Reset()
			res := e.mustUp(explicitProgram(engine.Inputs{"region": "us"}))
			after := e.explicitRecord()
			if (after.ID != before.ID) != tt.replace || after.Inputs["region"] != "us" {
				t.Errorf("provider %s -> %s, region %v", before.ID, after.ID, after.Inputs["region"])
			}
			if got := res.Changes[engine.OpReplace]; (got == 2) != tt.replace {
				t.Errorf("changes %v", res.Changes)
			}
			for _, name := range []string{"a", "b"} {
				if got := e.find(name).Provider; got != string(after.URN)+"::"+after.ID {
					t.Errorf("%s provider = %q", name, got)
				}
			}
			if tt.replace {
				checkReplacedProviderGone(t, e, prov, before)
			}
			checkOrder(t, e.snap())
		})
	}
}

// TestExplicitProviderPlan checks a preview plans the explicit provider's
// replacement and its resources', and an up executes that plan.
func TestExplicitProviderPlan(t *testing.T) {
	e, prov := newProviderEnv(t)
	prov.ReplaceKeys = []string{"region"}
	e.mustUp(explicitProgram(engine.Inputs{"region": "eu"}))
	res, err := e.preview(explicitProgram(engine.Inputs{"region": "us"}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes[engine.OpReplace] != 2 || res.Plan == nil {
		t.Fatalf("preview changes %v", res.Changes)
	}
	e.opts.Plan = res.Plan
	if res := e.mustUp(explicitProgram(engine.Inputs{"region": "us"})); res.Changes[engine.OpReplace] != 2 {
		t.Errorf("up changes %v", res.Changes)
	}
}

func TestExplicitProviderPlanMismatch(t *testing.T) {
	e, _ := newProviderEnv(t)
	e.mustUp(explicitProgram(engine.Inputs{"region": "eu"}))
	res, err := e.preview(explicitProgram(engine.Inputs{"region": "us"}))
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Plan = res.Plan
	_, err = e.up(explicitProgram(engine.Inputs{"region": "mars"}))
	var m *engine.PlanMismatchError
	if !errors.As(err, &m) || !strings.Contains(err.Error(), "cluster") {
		t.Errorf("up with a plan whose provider inputs differ: %v", err)
	}
}

// TestExplicitProviderUnknownInput checks a preview of a provider whose
// input is not known yet (a stack output of a project not deployed)
// configures nothing real, and that reading a missing output of its
// resources is unknown, not an error.
func TestExplicitProviderUnknownInput(t *testing.T) {
	e, prov := newProviderEnv(t)
	e.opts.References = func(string) (resource.PropertyMap, bool) {
		return resource.PropertyMap{"kubeconfig": resource.Computed{}}, true
	}
	prog := func(ctx *engine.Context) error {
		ref := ctx.StackReference("kubeconfig")
		p := ctx.Resource(providerType, "cluster", engine.Inputs{"kubeconfig": ref.Output("kubeconfig")})
		a := ctx.Resource(typ, "a", engine.Inputs{"n": 1}, engine.Provider(p))
		ctx.Export("x", a.Output("notthere"))
		return nil
	}
	res, err := e.preview(prog)
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	confs := prov.Configurations()
	if len(confs) != 1 || confs[0].Request.ID != resource.UnknownStringValue {
		t.Fatalf("configurations %+v, want one with the unknown ID", confs)
	}
	if _, ok := confs[0].Request.Inputs["kubeconfig"].(resource.Computed); !ok {
		t.Errorf("Configure got kubeconfig %v, want unknown", confs[0].Request.Inputs["kubeconfig"])
	}
	if _, ok := res.Outputs["x"].(resource.Computed); !ok {
		t.Errorf("output x = %v, want unknown", res.Outputs["x"])
	}
	var planned bool
	for _, s := range res.Plan.Steps {
		planned = planned || s.URN.Name() == "cluster" && s.Op == engine.OpCreate
	}
	if !planned {
		t.Errorf("the plan %+v has no create of the provider", res.Plan.Steps)
	}
}

// TestExplicitProviderRemovedAndDestroy checks an up that no longer
// declares a provider and its resources, and a destroy, delete the
// resources through the provider configured from its recorded inputs, and
// the provider with them.
func TestExplicitProviderRemovedAndDestroy(t *testing.T) {
	for _, op := range []string{"remove", "destroy"} {
		t.Run(op, func(t *testing.T) {
			e, prov := newProviderEnv(t)
			e.mustUp(explicitProgram(engine.Inputs{"region": "eu"}))
			n := len(e.backend.Entries(project, stack))
			prov.Reset()
			var err error
			if op == "remove" {
				_, err = e.up(func(*engine.Context) error { return nil })
			} else {
				_, err = engine.Destroy(t.Context(), e.opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, en := range e.backend.Entries(project, stack)[n:] {
				if en.Kind == backend.EntryBegin && en.Old != nil && en.New == nil {
					order = append(order, en.Old.URN.Name())
				}
			}
			if len(order) != 2 || order[0] == "cluster" || order[1] == "cluster" {
				t.Errorf("deletes journaled %v, want a and b", order)
			}
			if e.find("cluster") != nil || e.find("a") != nil || e.plugin.Count("Delete") != 2 {
				t.Errorf("left the provider or a resource: %d deletes", e.plugin.Count("Delete"))
			}
			confs := prov.Configurations()
			if len(confs) != 1 || confs[0].Request.Inputs["region"] != "eu" || confs[0].Calls() != 2 {
				t.Errorf("configurations %+v, want one from the recorded inputs serving the 2 deletes", confs)
			}
		})
	}
}

func TestExplicitProviderSecretInput(t *testing.T) {
	checkTokenStaysSecret(t, nil, explicitProgram(engine.Inputs{"token": engine.Secret("kub3-t0ken-x")}), "kub3-t0ken-x",
		func(r *state.Resource) bool { return r.URN.Name() == "cluster" })
}

// TestExplicitProviderInputFromResource checks a provider whose input is
// another resource's output waits for it, and its resources for it.
func TestExplicitProviderInputFromResource(t *testing.T) {
	e, prov := newProviderEnv(t)
	prog := func(ctx *engine.Context) error {
		src := ctx.Resource(typ, "src", engine.Inputs{"n": 0})
		p := ctx.Resource(providerType, "cluster", engine.Inputs{"region": src.Output("result")})
		ctx.Resource(typ, "a", engine.Inputs{"n": 1}, engine.Provider(p))
		return nil
	}
	e.mustUp(prog)
	p := e.explicitRecord()
	if p.Inputs["region"] != e.find("src").ID || len(p.Dependencies) != 1 {
		t.Errorf("provider inputs %v dependencies %v", p.Inputs, p.Dependencies)
	}
	if n := len(prov.Configurations()); n != 2 { // the default provider of src, and cluster
		t.Errorf("%d configurations", n)
	}
	checkOrder(t, e.snap())
}

func TestExplicitProviderRefused(t *testing.T) {
	tests := []struct {
		name string
		prog engine.Program
		want []string
	}{
		{"other package", func(ctx *engine.Context) error {
			p := ctx.Resource("pulumi:providers:other", "cluster", nil)
			ctx.Resource(typ, "a", nil, engine.Provider(p))
			return nil
		}, []string{`"test"`, "::a", "::cluster", `"other"`}},
		{"not a provider", func(ctx *engine.Context) error {
			p := ctx.Resource(typ, "plain", nil)
			ctx.Resource(typ, "a", nil, engine.Provider(p))
			return nil
		}, []string{"::a", "::plain", "not a provider"}},
		{"no plugin", func(ctx *engine.Context) error {
			ctx.Resource("pulumi:providers:nope", "cluster", nil)
			return nil
		}, []string{`"nope"`, "::cluster"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newProviderEnv(t)
			_, err := e.up(tt.prog)
			if err == nil {
				t.Fatal("up succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if e.snap() != nil && len(e.snap().Resources) > 0 {
				t.Errorf("up recorded %d resources", len(e.snap().Resources))
			}
		})
	}
}

// TestMissingOutput checks reading an output a resource does not have is
// an error naming its outputs for a provider plugin's resource (preview and
// up), and null for a built-in plugin's.
func TestMissingOutput(t *testing.T) {
	prog := func(ctx *engine.Context) error {
		a := ctx.Resource(typ, "a", engine.Inputs{"n": 1})
		ctx.Export("x", a.Output("nmae"))
		return nil
	}
	e, _ := newProviderEnv(t)
	for _, op := range []func(engine.Program) (*engine.Result, error){e.preview, e.up} {
		_, err := op(prog)
		if err == nil || !strings.Contains(err.Error(), `has no output "nmae"; its outputs are: id, n, result`) {
			t.Errorf("error %v, want the missing output named", err)
		}
	}
	b := newEnv(t)
	res, err := b.up(prog)
	if err != nil || res.Outputs["x"] != nil {
		t.Errorf("built-in plugin: %v, x = %v", err, res.Outputs["x"])
	}
}

// TestConfigureFailsBeforeAnyChange checks a provider whose Configure fails
// stops an up before any step, the root stack's included.
func TestConfigureFailsBeforeAnyChange(t *testing.T) {
	e, prov := newProviderEnv(t)
	refused := errors.New("no credentials")
	prov.OnConfigure = func(context.Context, resource.ConfigureRequest) error { return refused }
	_, err := e.up(twoResources)
	if !errors.Is(err, refused) {
		t.Fatalf("up: %v", err)
	}
	if n := len(e.backend.Entries(project, stack)); n != 0 || e.plugin.Count("Create") != 0 {
		t.Errorf("%d journal entries, %d creates", n, e.plugin.Count("Create"))
	}
}
