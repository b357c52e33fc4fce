package orchestrate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// fakeGraph is a random project graph over the in-memory plugin. Project
// p<i> depends on some earlier projects; each of its resources takes the
// config values p<i>:size<j> (an update), p<i>:gen<j> (a replacement) and
// p<i>:secret<j> (a secret update), the previous resource's outputs and
// outputs of its upstream projects by stack reference; it exports each
// resource's size (known in a preview) and result (unknown until the
// resource exists).
type fakeGraph struct {
	projects  []Project
	resources []int // per project
}

func newFakeGraph(rng *rand.Rand) fakeGraph {
	var g fakeGraph
	n := 3 + rng.IntN(4)
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		var deps []string
		for j := range i {
			if rng.IntN(2) == 0 {
				deps = append(deps, fmt.Sprintf("p%d", j))
			}
		}
		count := 1 + rng.IntN(3)
		g.resources = append(g.resources, count)
		reads := make([][2]string, count) // per resource: upstream project and output
		for r := range count {
			if len(deps) > 0 {
				up := deps[rng.IntN(len(deps))]
				kind := []string{"size", "result"}[rng.IntN(2)]
				reads[r] = [2]string{up, fmt.Sprintf("%s0", kind)}
			}
		}
		g.projects = append(g.projects, Project{Name: name, DependsOn: deps, Program: fakeProgram(name, count, reads)})
	}
	return g
}

func fakeProgram(name string, count int, reads [][2]string) engine.Program {
	return func(ctx *engine.Context) error {
		var prev *engine.Resource
		for r := range count {
			in := engine.Inputs{}
			for _, k := range []string{"size", "gen", "secret"} {
				if v, ok := ctx.Config(fmt.Sprintf("%s:%s%d", name, k, r)); ok {
					in[k] = v
				}
			}
			if reads[r][0] != "" {
				in["upstream"] = ctx.StackReference(reads[r][0]).Output(reads[r][1])
			}
			if prev != nil {
				in["previous"] = prev.Output("result")
			}
			res := ctx.Resource(plugintest.Type, fmt.Sprintf("r%d", r), in)
			ctx.Export(fmt.Sprintf("size%d", r), res.Output("size"))
			ctx.Export(fmt.Sprintf("result%d", r), res.Output("result"))
			prev = res
		}
		return nil
	}
}

// change makes one random config change.
func (g fakeGraph) change(rng *rand.Rand, cfg map[string]any) string {
	p := rng.IntN(len(g.projects))
	r := rng.IntN(g.resources[p])
	switch rng.IntN(4) {
	case 0:
		key := fmt.Sprintf("p%d:size%d", p, r)
		cfg[key] = float64(int(1024) << rng.IntN(3))
		return fmt.Sprintf("%s=%v", key, cfg[key])
	case 1:
		key := fmt.Sprintf("p%d:gen%d", p, r)
		cfg[key] = fmt.Sprintf("name-%d", rng.IntN(3))
		return fmt.Sprintf("%s=%v", key, cfg[key])
	case 2:
		key := fmt.Sprintf("p%d:secret%d", p, r)
		cfg[key] = resource.Secret{Element: fmt.Sprintf("s%d", rng.IntN(3))}
		return key + "=[secret]"
	}
	key := fmt.Sprintf("p%d:size%d", p, r)
	delete(cfg, key)
	return key + " unset"
}

// TestPreviewEqualsUpOverRandomGraphs is the preview-equals-up property
// over random graphs of fake projects: random config changes, then
// preview and up list the same (project, URN, operation) set.
func TestPreviewEqualsUpOverRandomGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 1))
	for graph := range 10 {
		g := newFakeGraph(rng)
		b := plugintest.NewBackend()
		req, _ := request(Up, b, &plugintest.Plugin{ReplaceKeys: []string{"gen"}}, g.projects)
		req.Config = map[string]any{}
		if _, err := Run(t.Context(), req); err != nil {
			t.Fatalf("graph %d: first up: %v", graph, err)
		}
		for i := range 10 {
			var did []string
			for range 3 {
				did = append(did, g.change(rng, req.Config))
			}
			preview, up := &event.Recorder{}, &event.Recorder{}
			req.Operation, req.Events = Preview, preview
			if _, err := Run(t.Context(), req); err != nil {
				t.Fatalf("graph %d, iteration %d (%s): preview: %v", graph, i, strings.Join(did, ", "), err)
			}
			req.Operation, req.Events = Up, up
			if _, err := Run(t.Context(), req); err != nil {
				t.Fatalf("graph %d, iteration %d (%s): up: %v", graph, i, strings.Join(did, ", "), err)
			}
			if p, u := stepSet(preview), stepSet(up); strings.Join(p, "\n") != strings.Join(u, "\n") {
				t.Fatalf("graph %d, iteration %d (%s): preview listed\n  %s\nup did\n  %s", graph, i, strings.Join(did, ", "),
					strings.Join(p, "\n  "), strings.Join(u, "\n  "))
			}
		}
	}
}
