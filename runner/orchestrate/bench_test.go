package orchestrate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// wide returns 40 projects in 5 levels of 8; each project depends on two
// projects of the level above and reads their outputs by stack reference.
func wide() (map[string][]string, []string) {
	deps := map[string][]string{}
	var order []string
	for level := 0; level < 5; level++ {
		for i := 0; i < 8; i++ {
			name := fmt.Sprintf("l%d-p%d", level, i)
			order = append(order, name)
			if level > 0 {
				deps[name] = []string{fmt.Sprintf("l%d-p%d", level-1, i), fmt.Sprintf("l%d-p%d", level-1, (i+1)%8)}
			}
		}
	}
	return deps, order
}

// BenchmarkOrchestrateWide deploys 40 projects in 5 levels, each project's
// work taking 200 ms, and reports wall time over the critical path (5 x
// 200 ms): 1.0 would be a scheduler with no overhead at all. The folder
// sub-benchmark includes the real state writes and their fsyncs.
func BenchmarkOrchestrateWide(b *testing.B) {
	deps, order := wide()
	const latency = 200 * time.Millisecond
	for _, name := range []string{"memory", "folder"} {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				plug := &plugintest.Plugin{Latency: latency, NoCallLog: true}
				req, _ := request(Up, plugintest.NewBackend(), plug, chain(deps, order, nil))
				if name == "folder" {
					f, err := backend.Open(b.TempDir())
					if err != nil {
						b.Fatal(err)
					}
					req.Backend = f
					req.Crypter = statetest.NewCrypter(1)
				}
				req.Events = nil
				start := time.Now()
				if _, err := Run(context.Background(), req); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total)/float64(b.N)/float64(5*latency), "ratio-to-critical-path")
		})
	}
}

// BenchmarkOrchestrateOverhead deploys the same 40 projects with plugins
// that take no time, so what is measured is runner's own cost per project
// (program, plan, journal and snapshot writes with their fsyncs, stack
// references, scheduling), on the in-memory and on the folder backend.
func BenchmarkOrchestrateOverhead(b *testing.B) {
	deps, order := wide()
	backends := map[string]func(b *testing.B) backend.Backend{
		"memory": func(*testing.B) backend.Backend { return plugintest.NewBackend() },
		"folder": func(b *testing.B) backend.Backend {
			f, err := backend.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return f
		},
	}
	for _, name := range []string{"memory", "folder"} {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				plug := &plugintest.Plugin{NoCallLog: true}
				req, _ := request(Up, plugintest.NewBackend(), plug, chain(deps, order, nil))
				req.Backend = backends[name](b)
				req.Crypter = statetest.NewCrypter(1)
				req.Events = nil
				req.Plugins = func() []resource.Plugin { return []resource.Plugin{plug} }
				start := time.Now()
				if _, err := Run(context.Background(), req); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N)/40, "ms/project")
		})
	}
}
