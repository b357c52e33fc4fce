package orchestrate

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// relay is a graph a -> b -> c: a's resource takes the config values
// "a:size", "a:token" (secret) and "a:generation" (its change replaces the
// resource) and exports them with the resource's "result" (known only once
// it exists); b and c each pass their upstream's outputs through a resource
// of their own. A config change reaches b and c only through a's planned
// outputs.
func relay() []Project {
	pass := func(name, up string) Project {
		return Project{Name: name, DependsOn: []string{up}, Program: func(ctx *engine.Context) error {
			ref := ctx.StackReference(up)
			r := ctx.Resource(plugintest.Type, name, engine.Inputs{
				"size": ref.Output("size"), "token": ref.Output("token"), "serial": ref.Output("serial"),
			})
			ctx.Export("size", r.Output("size"))
			ctx.Export("token", r.Output("token"))
			ctx.Export("serial", r.Output("serial"))
			return nil
		}}
	}
	a := Project{Name: "a", Program: func(ctx *engine.Context) error {
		in := engine.Inputs{}
		for _, k := range []string{"size", "token", "generation"} {
			if v, ok := ctx.Config("a:" + k); ok {
				in[k] = v
			}
		}
		r := ctx.Resource(plugintest.Type, "a", in)
		ctx.Export("size", r.Output("size"))
		ctx.Export("token", r.Output("token"))
		ctx.Export("serial", r.Output("result"))
		return nil
	}}
	return []Project{a, pass("b", "a"), pass("c", "b")}
}

// changedSteps returns the steps other than same that the events report,
// as "project op name".
func changedSteps(rec *event.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		if e.Type == event.StepDone && e.Op != string(engine.OpSame) {
			out = append(out, fmt.Sprintf("%s %s %s", e.Project, e.Op, resource.URN(e.URN).Name()))
		}
	}
	sort.Strings(out)
	return out
}

func TestPreviewReadsPlannedOutputs(t *testing.T) {
	tests := []struct {
		name    string
		config  map[string]any
		targets []string
		want    []string
	}{
		{name: "nothing changed", config: map[string]any{"a:size": 2048.0, "a:token": resource.Secret{Element: "t1"}}},
		{name: "a known new value", config: map[string]any{"a:size": 4096.0, "a:token": resource.Secret{Element: "t1"}},
			want: []string{"a update a", "b update b", "c update c"}},
		{name: "a new secret", config: map[string]any{"a:size": 2048.0, "a:token": resource.Secret{Element: "t2"}},
			want: []string{"a update a", "b update b", "c update c"}},
		{name: "a replacement with unknown outputs", config: map[string]any{"a:size": 2048.0, "a:token": resource.Secret{Element: "t1"}, "a:generation": 2.0},
			want: []string{"a create-replacement a", "a delete-replaced a", "b update b", "c update c"}},
		{name: "targets read the snapshot of the others", targets: []string{"b", "c"},
			config: map[string]any{"a:size": 4096.0, "a:token": resource.Secret{Element: "t1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			b := plugintest.NewBackend()
			plug := &plugintest.Plugin{ReplaceKeys: []string{"generation"}}
			req, _ := request(Up, b, plug, relay())
			req.Config = map[string]any{"a:size": 2048.0, "a:token": resource.Secret{Element: "t1"}}
			if _, err := Run(ctx, req); err != nil {
				t.Fatal(err)
			}
			req.Config, req.Targets = tt.config, tt.targets
			var preview, up *event.Recorder
			req.Operation, req.Events, preview = Preview, nil, &event.Recorder{}
			req.Events = preview
			sum, err := Run(ctx, req)
			if err != nil {
				t.Fatalf("preview: %v", err)
			}
			if got := changedSteps(preview); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("preview lists %v, want %v", got, tt.want)
			}
			for name, outs := range sum.Outputs {
				if v, ok := outs["token"]; ok && !isSecretOrUnknown(v) {
					t.Errorf("%s's planned token output %#v is neither secret nor unknown", name, v)
				}
			}
			req.Operation, up = Up, &event.Recorder{}
			req.Events = up
			if _, err := Run(ctx, req); err != nil {
				t.Fatalf("up: %v", err)
			}
			if p, u := changedSteps(preview), changedSteps(up); fmt.Sprint(p) != fmt.Sprint(u) {
				t.Errorf("preview listed %v, up did %v", p, u)
			}
		})
	}
}

func isSecretOrUnknown(v any) bool {
	switch v.(type) {
	case resource.Secret, resource.Computed:
		return true
	}
	return false
}
