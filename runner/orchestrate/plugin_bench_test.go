package orchestrate

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// thingChain returns n projects p0 -> p1 -> ... each declaring one
// testprov:index:Thing that reads the previous project's output by stack
// reference.
func thingChain(n int) []Project {
	ps := make([]Project, n)
	for i := range ps {
		name := fmt.Sprintf("p%d", i)
		var deps []string
		if i > 0 {
			deps = []string{fmt.Sprintf("p%d", i-1)}
		}
		ps[i] = Project{Name: name, DependsOn: deps, Program: func(ctx *engine.Context) error {
			in := engine.Inputs{"name": name}
			for _, d := range deps {
				in["from"] = ctx.StackReference(d).Output("value")
			}
			r := ctx.Resource(providertest.TypeThing, name, in)
			ctx.Export("value", r.Output("name"))
			return nil
		}}
	}
	return ps
}

// BenchmarkPluginShared deploys a chain of 6 projects through the real
// testprov plugin, whose start takes 1 s (TESTPROV_START_DELAY), and
// reports the wall time of the whole run, plugin stops included. "shared"
// is runner's way: one pool for the run, so one process serves all six
// projects and starts once (target: at most 1.5 s). "per-project" gives
// each project a pool of its own, a process per project as Pulumi's CLI
// runs them (about 6 s).
func BenchmarkPluginShared(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and runs pulumi-resource-testprov")
	}
	bin := providertest.Binary(b)
	const delay = time.Second
	newPool := func() *pluginhost.Pool {
		return pluginhost.NewPool(pluginhost.PoolOptions{
			Workspace: b.TempDir(),
			Environ:   append(os.Environ(), providertest.EnvStartDelay+"="+delay.String()),
			Locate:    func(string, string) (string, error) { return bin, nil },
		})
	}
	for _, mode := range []string{"shared", "per-project"} {
		b.Run(mode, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				f, err := backend.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				var mu sync.Mutex
				var pools []*pluginhost.Pool
				plugins := func() []resource.Plugin {
					mu.Lock()
					defer mu.Unlock()
					if mode == "per-project" || len(pools) == 0 {
						pools = append(pools, newPool())
					}
					return []resource.Plugin{pools[len(pools)-1].Plugin("testprov", "1.2.3")}
				}
				req := Request{Operation: Up, Stack: "dev", Projects: thingChain(6), Backend: f,
					Plugins: plugins, Crypter: statetest.NewCrypter(1),
					Config: map[string]any{"testprov:store": b.TempDir()}}
				start := time.Now()
				sum, err := Run(context.Background(), req)
				for _, p := range pools {
					p.Close(context.Background())
				}
				total += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if got := sum.Outputs["p5"]["value"]; got != "p5" {
					b.Fatalf("p5's output = %v", got)
				}
				if want := map[string]int{"shared": 1, "per-project": 6}[mode]; len(pools) != want {
					b.Fatalf("%d pools, want %d", len(pools), want)
				}
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "wall-s")
		})
	}
}
