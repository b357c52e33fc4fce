package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// chain declares a -> b -> c: b's "from" is a's result, c's is b's.
func chain(size string, extra ...string) engine.Program {
	return func(ctx *engine.Context) error {
		a := ctx.Resource(typ, "a", engine.Inputs{"size": size, "tags": map[string]any{"env": "dev"}})
		b := ctx.Resource(typ, "b", engine.Inputs{"from": a.Output("result")})
		ctx.Resource(typ, "c", engine.Inputs{"from": b.Output("result")})
		for _, n := range extra {
			ctx.Resource(typ, n, engine.Inputs{"n": n})
		}
		ctx.Export("a", a.Output("result"))
		ctx.Export("size", engine.Secret(size))
		return nil
	}
}

// planRoundTrip encodes and decodes a plan as a plan file would hold it.
func planRoundTrip(t *testing.T, p *engine.Plan) *engine.Plan {
	t.Helper()
	c := statetest.NewCrypter(5)
	data, err := engine.MarshalPlan(t.Context(), p, c)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.UnmarshalPlan(t.Context(), data, c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changed lists "op urn" of the plan's steps other than same.
func changed(steps []engine.Step) []string {
	var out []string
	for _, s := range steps {
		if s.Op != engine.OpSame {
			out = append(out, string(s.Op)+" "+string(s.URN))
		}
	}
	slices.Sort(out)
	return out
}

// summaries lists "op urn" of an operation's steps.
func summaries(steps []engine.StepSummary) []string {
	var out []string
	for _, s := range steps {
		out = append(out, string(s.Op)+" "+string(s.URN))
	}
	slices.Sort(out)
	return out
}

func TestUpExecutesThePlan(t *testing.T) {
	tests := []struct {
		name        string
		before      engine.Program // nil: never deployed
		prog        engine.Program
		replaceKeys []string
		want        []string // "op name" of the planned changes
	}{
		{name: "create chain with unknowns", prog: chain("s"),
			want: []string{"create a", "create b", "create c", "create proj-dev"}},
		{name: "update", before: chain("s"), prog: chain("m"), want: []string{"update a"}},
		{name: "replace flows unknowns downstream", before: chain("s"), prog: chain("m"), replaceKeys: []string{"size"},
			want: []string{"replace a", "update b"}},
		{name: "create and delete", before: chain("s", "x"), prog: chain("s", "y"), want: []string{"create y", "delete x"}},
		{name: "no change", before: chain("s"), prog: chain("s")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.plugin.ReplaceKeys = tt.replaceKeys
			if tt.before != nil {
				e.mustUp(tt.before)
			}
			prev, err := e.preview(tt.prog)
			if err != nil {
				t.Fatal(err)
			}
			p := prev.Plan
			if p == nil || p.Project != project || p.Stack != stack {
				t.Fatalf("preview returned plan %+v", p)
			}
			var want []string
			for _, w := range tt.want {
				op, name, _ := strings.Cut(w, " ")
				u := urn(name)
				if name == "proj-dev" {
					u = resource.RootURN(project, stack)
				}
				want = append(want, op+" "+string(u))
			}
			slices.Sort(want)
			if got := changed(p.Steps); !slices.Equal(got, want) {
				t.Errorf("planned %v, want %v", got, want)
			}
			e.opts.Plan = planRoundTrip(t, p)
			res, err := e.up(tt.prog)
			if err != nil {
				t.Fatalf("up with the plan: %v", err)
			}
			if got := summaries(res.Steps); !slices.Equal(got, want) {
				t.Errorf("up did %v, the plan said %v", got, want)
			}
			if !equalCounts(res.Changes, prev.Changes) {
				t.Errorf("up changes %v, preview changes %v", res.Changes, prev.Changes)
			}
		})
	}
}

func equalCounts(a, b map[engine.Op]int) bool {
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

func TestUpRefusesAPlanOfAnotherState(t *testing.T) {
	tests := []struct {
		name   string
		change func(e *env) // changes the stored state after the preview
	}{
		{name: "an up ran since", change: func(e *env) { e.mustUp(chain("l")) }},
		{name: "the snapshot was put back", change: func(e *env) { e.backend.Put(project, stack, e.snap()) }},
		{name: "first deploy happened", change: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.change != nil {
				e.mustUp(chain("s"))
			}
			prev, err := e.preview(chain("m"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(e)
			} else {
				e.opts.Plan = nil
				e.mustUp(chain("s"))
			}
			calls, entries, history := len(e.plugin.Calls()), len(e.backend.Entries(project, stack)), len(e.backend.Records(project, stack))
			e.opts.Plan = prev.Plan
			_, err = e.up(chain("m"))
			var mismatch *engine.PlanMismatchError
			if !errors.As(err, &mismatch) || mismatch.Project != project || !strings.Contains(err.Error(), "run preview again") {
				t.Fatalf("up with a stale plan: %v; want a *PlanMismatchError", err)
			}
			if len(e.plugin.Calls()) != calls {
				t.Errorf("the plugin was called: %v", e.plugin.Calls()[calls:])
			}
			if len(e.backend.Entries(project, stack)) != entries || len(e.backend.Records(project, stack)) != history {
				t.Errorf("something was written")
			}
		})
	}
}

func TestUpStopsAtAStepThatDiffersFromThePlan(t *testing.T) {
	tests := []struct {
		name      string
		planned   engine.Program
		actual    engine.Program
		wantInMsg []string
		notInMsg  []string
		before    func(p *plugintest.Plugin) // before the preview
		atUp      func(p *plugintest.Plugin) // before the up
	}{
		{name: "an input changed", planned: chain("medium-size"), actual: chain("large-size"),
			wantInMsg: []string{string(urn("a")), "size"}, notInMsg: []string{"medium-size", "large-size"}},
		{name: "an op changed", planned: chain("medium-size"), actual: chain("medium-size"),
			atUp:      func(p *plugintest.Plugin) { p.ReplaceKeys = []string{"size"} },
			wantInMsg: []string{string(urn("a")), "the plan says update, the step now is replace"}},
		{name: "a replacement now deletes first", planned: chain("medium-size"), actual: chain("medium-size"),
			before:    func(p *plugintest.Plugin) { p.ReplaceKeys = []string{"size"} },
			atUp:      func(p *plugintest.Plugin) { p.DeleteBeforeReplace = true },
			wantInMsg: []string{string(urn("a")), "deletes before it creates"}},
		{name: "a resource not in the plan", planned: chain("medium-size"), actual: chain("s", "z"),
			wantInMsg: []string{string(urn("z")), "not in the plan"}},
		{name: "a planned resource is gone", planned: chain("s", "z"), actual: chain("s"),
			wantInMsg: []string{string(urn("z")), "planned but not called for"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.mustUp(chain("s"))
			if tt.before != nil {
				tt.before(e.plugin)
			}
			prev, err := e.preview(tt.planned)
			if err != nil {
				t.Fatal(err)
			}
			e.opts.Plan = planRoundTrip(t, prev.Plan)
			updates := e.plugin.Count("Update") + e.plugin.Count("Create")
			if tt.atUp != nil {
				tt.atUp(e.plugin)
			}
			_, err = e.up(tt.actual)
			var mismatch *engine.PlanMismatchError
			if !errors.As(err, &mismatch) {
				t.Fatalf("up: %v; want a *PlanMismatchError", err)
			}
			for _, s := range tt.wantInMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			for _, s := range tt.notInMsg {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q holds the value %q", err, s)
				}
			}
			if n := e.plugin.Count("Update") + e.plugin.Count("Create"); n != updates {
				t.Errorf("%d steps ran", n-updates)
			}
			if a := e.find("a"); a == nil || a.Inputs["size"] != "s" {
				t.Errorf("the state changed: %+v", a)
			}
			checkOrder(t, e.snap())
		})
	}
}

// TestPlannedUnknownUpdateMayTurnOutSame: an update planned only because an
// input was unknown runs as same when the value turns out unchanged.
func TestPlannedUnknownUpdateMayTurnOutSame(t *testing.T) {
	e := newEnv(t)
	e.plugin.OnUpdate = func(_ context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
		outs := resource.PropertyMap{"size": req.NewInputs["size"], "result": req.OldOutputs["result"]}
		if req.Preview {
			outs["result"] = resource.Computed{}
		}
		return resource.UpdateResponse{Outputs: outs}, nil
	}
	e.mustUp(chain("s"))
	prev, err := e.preview(chain("m"))
	if err != nil {
		t.Fatal(err)
	}
	if got := changed(prev.Plan.Steps); !slices.Contains(got, "update "+string(urn("b"))) {
		t.Fatalf("planned %v; want b updated from an unknown", got)
	}
	e.opts.Plan = planRoundTrip(t, prev.Plan)
	res, err := e.up(chain("m"))
	if err != nil {
		t.Fatal(err)
	}
	if got := summaries(res.Steps); !slices.Equal(got, []string{"update " + string(urn("a"))}) {
		t.Errorf("up did %v", got)
	}
}

func TestPlanFileRoundTrip(t *testing.T) {
	p := &engine.Plan{
		Project: project, Stack: stack, Base: "sha256:abc",
		Steps: []engine.Step{
			{Op: engine.OpReplace, URN: urn("a"), Type: typ, Keys: []string{"items[0]", "pw", "tags.env"}, Replaces: []string{"pw"},
				DeleteBeforeReplace: true, Deps: []resource.URN{urn("z")},
				OldInputs: resource.PropertyMap{"pw": resource.Secret{Element: "old-hunter22"}},
				NewInputs: resource.PropertyMap{"pw": resource.Secret{Element: "new-hunter22"}, "from": resource.Computed{},
					"tags": map[string]any{"env": "dev"}, "items": []any{1.0, "x"}}},
			{Op: engine.OpDelete, URN: urn("z"), Type: typ, OldInputs: resource.PropertyMap{"n": 2.0}},
		},
		Outputs: resource.PropertyMap{"pw": resource.Secret{Element: "out-hunter22"}, "later": resource.Computed{}},
	}
	c := statetest.NewCrypter(5)
	data, err := engine.MarshalPlan(t.Context(), p, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"hunter22"} {
		if strings.Contains(string(data), plain) {
			t.Errorf("the plan file holds the plaintext %q:\n%s", plain, data)
		}
	}
	if !strings.Contains(string(data), resource.UnknownStringValue) || !strings.Contains(string(data), `"version": 1`) {
		t.Errorf("the plan file lacks the unknown sentinel or its version:\n%s", data)
	}
	got, err := engine.UnmarshalPlan(t.Context(), data, c)
	if err != nil {
		t.Fatal(err)
	}
	again, err := engine.MarshalPlan(t.Context(), got, c)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := engine.UnmarshalPlan(t.Context(), again, c)
	if s := back.Steps[0]; !resource.DeepEqual(map[string]any(s.NewInputs)["pw"], resource.Secret{Element: "new-hunter22"}) ||
		s.NewInputs["from"] != (resource.Computed{}) || !slices.Equal(s.Keys, p.Steps[0].Keys) || !s.DeleteBeforeReplace {
		t.Errorf("round trip: %+v", s)
	}
	if got.Base != p.Base || len(got.Steps) != 2 || got.Steps[1].Op != engine.OpDelete || got.Steps[1].NewInputs != nil {
		t.Errorf("round trip: %+v", got)
	}
	if _, err := engine.UnmarshalPlan(t.Context(), []byte(`{"version": 9}`), c); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("a plan of another version: %v", err)
	}
}

// TestPlanOnTheFolderBackend: the folder backend's digest tells a plan's
// state from a later one.
func TestPlanOnTheFolderBackend(t *testing.T) {
	f, err := backend.Open("file://" + t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.opts.Backend = f
	e.opts.Crypter = statetest.NewCrypter(3)
	e.mustUp(chain("s"))
	first, err := e.preview(chain("m"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.preview(chain("l"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Plan.Base == "" || first.Plan.Base != second.Plan.Base {
		t.Fatalf("two previews of one state have bases %q and %q", first.Plan.Base, second.Plan.Base)
	}
	e.opts.Plan = first.Plan
	if _, err := e.up(chain("m")); err != nil {
		t.Fatalf("up with the plan: %v", err)
	}
	e.opts.Plan = second.Plan
	var mismatch *engine.PlanMismatchError
	if _, err := e.up(chain("l")); !errors.As(err, &mismatch) {
		t.Fatalf("up with a plan older than the last up: %v", err)
	}
}

func TestPlanStepKeysArePropertyPaths(t *testing.T) {
	prog := func(in engine.Inputs) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Resource(typ, "a", in)
			return nil
		}
	}
	base := engine.Inputs{"port": 80, "tags": map[string]any{"env": "dev", "team": "x"}, "items": []any{"a", "b"}, "odd.key": "v"}
	tests := []struct {
		name         string
		change       engine.Inputs
		replaceKeys  []string
		wantKeys     []string
		wantReplaces []string
	}{
		{name: "nested map", change: engine.Inputs{"tags": map[string]any{"env": "prod", "team": "x"}}, wantKeys: []string{"tags.env"}},
		{name: "list element", change: engine.Inputs{"items": []any{"a", "c"}}, wantKeys: []string{"items[1]"}},
		{name: "list length", change: engine.Inputs{"items": []any{"a"}}, wantKeys: []string{"items"}},
		{name: "key with a dot", change: engine.Inputs{"odd.key": "w"}, wantKeys: []string{`["odd.key"]`}},
		{name: "replace reason", change: engine.Inputs{"port": 81, "tags": map[string]any{"env": "dev"}}, replaceKeys: []string{"port"},
			wantKeys: []string{"port", "tags.team"}, wantReplaces: []string{"port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.plugin.ReplaceKeys = tt.replaceKeys
			e.mustUp(prog(base))
			in := engine.Inputs{}
			for k, v := range base {
				in[k] = v
			}
			for k, v := range tt.change {
				in[k] = v
			}
			res, err := e.preview(prog(in))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range res.Plan.Steps {
				if s.URN != urn("a") {
					continue
				}
				if !slices.Equal(s.Keys, tt.wantKeys) || !slices.Equal(s.Replaces, tt.wantReplaces) {
					t.Errorf("keys %q replaces %q, want %q and %q", s.Keys, s.Replaces, tt.wantKeys, tt.wantReplaces)
				}
				return
			}
			t.Errorf("no step for a in %+v", res.Plan.Steps)
		})
	}
}

// An up whose program now exports other stack outputs than the plan stops
// before recording them (before: the plan ran and the new outputs reached
// the state, the hooks and the dependents unchecked).
func TestUpStopsAtStackOutputsThatDifferFromThePlan(t *testing.T) {
	withURL := func(url string) engine.Program {
		return func(ctx *engine.Context) error {
			if err := chain("s")(ctx); err != nil {
				return err
			}
			ctx.Export("url", url)
			return nil
		}
	}
	e := newEnv(t)
	e.mustUp(withURL("http://a.example"))
	prev, err := e.preview(withURL("http://a.example"))
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Plan = planRoundTrip(t, prev.Plan)
	_, err = e.up(withURL("http://evil.example"))
	var mismatch *engine.PlanMismatchError
	if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), "url") || strings.Contains(err.Error(), "evil") {
		t.Fatalf("up = %v, want a *PlanMismatchError naming the output url and not its value", err)
	}
	if got := e.snap().Resources[0].Outputs["url"]; got != "http://a.example" {
		t.Errorf("the recorded output url is %v", got)
	}
}

// An up whose program now protects a resource (or retains it on delete)
// that the plan did not stops before that step (before: an option-only
// change ran under the old plan).
func TestUpStopsAtOptionsThatDifferFromThePlan(t *testing.T) {
	prog := func(opts ...engine.ResourceOption) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Resource(typ, "a", engine.Inputs{"size": "s"}, opts...)
			return nil
		}
	}
	for name, opt := range map[string]engine.ResourceOption{"protect": engine.Protect(true), "retainOnDelete": engine.RetainOnDelete(true)} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.mustUp(prog())
			prev, err := e.preview(prog())
			if err != nil {
				t.Fatal(err)
			}
			e.opts.Plan = planRoundTrip(t, prev.Plan)
			_, err = e.up(prog(opt))
			var mismatch *engine.PlanMismatchError
			if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), name) {
				t.Fatalf("up = %v, want a *PlanMismatchError naming %s", err, name)
			}
			if a := e.find("a"); a == nil || a.Protect || a.RetainOnDelete {
				t.Errorf("the state took the new option: %+v", a)
			}
		})
	}
}
