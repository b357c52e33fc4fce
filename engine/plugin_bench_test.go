package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// thingProgram declares n testprov:index:Thing resources shaped as
// wideProgram's: every other one refers to an earlier one's output.
func thingProgram(n int) engine.Program {
	return func(ctx *engine.Context) error {
		rs := make([]*engine.Resource, n)
		for i := range rs {
			in := engine.Inputs{"index": i, "name": fmt.Sprintf("r%d", i)}
			if i%2 == 1 {
				in["parent"] = rs[i/2].Output("name")
			}
			rs[i] = ctx.Resource(providertest.TypeThing, fmt.Sprintf("r%d", i), in)
		}
		ctx.Export("first", rs[0].Output("name"))
		return nil
	}
}

// pluginBench is a folder backend and a pool running the real
// pulumi-resource-testprov, closed at the end of the benchmark.
type pluginBench struct {
	opts  engine.Options
	store string
}

func newPluginBench(b *testing.B, store string, env ...string) *pluginBench {
	b.Helper()
	if testing.Short() {
		b.Skip("builds and runs pulumi-resource-testprov")
	}
	bin := providertest.Binary(b)
	f, err := backend.Open("file://" + b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	pool := pluginhost.NewPool(pluginhost.PoolOptions{
		Workspace: b.TempDir(),
		Environ:   append(os.Environ(), env...),
		Locate:    func(string, string) (string, error) { return bin, nil },
	})
	b.Cleanup(func() { pool.Close(context.Background()) })
	return &pluginBench{store: store, opts: engine.Options{
		Project: project, Stack: stack, Backend: f,
		Plugins: []resource.Plugin{pool.Plugin("testprov", "1.2.3")},
		Crypter: statetest.NewCrypter(7),
		Config:  map[string]any{"testprov:store": store},
	}}
}

// storeDirs are where the plugin keeps its resource files: "disk" is the
// benchmark; "tmpfs" (when /dev/shm exists) is a diagnostic that tells how
// much of a run is the plugin's own file writes on the disk.
func storeDirs(b *testing.B) map[string]func() string {
	dirs := map[string]func() string{"disk": b.TempDir}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dirs["tmpfs"] = func() string {
			dir, err := os.MkdirTemp("/dev/shm", "testprov-store-")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return dirs
}

// BenchmarkPluginUpCreate10k creates 10,000 resources through the real
// test plugin over gRPC (Check and Create each) on the folder backend; the
// plugin writes one JSON file per resource (in a store emptied before each
// run). The plugin process is started once, before the timer.
func BenchmarkPluginUpCreate10k(b *testing.B) {
	for name, dir := range storeDirs(b) {
		b.Run("store="+name, func(b *testing.B) { benchPluginCreate(b, dir()) })
	}
}

func benchPluginCreate(b *testing.B, store string) {
	prog := thingProgram(10_000)
	pb := newPluginBench(b, store)
	warm(b, pb.opts)
	self0, children0 := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		empty(b, store)
		opts := pb.opts
		f, err := backend.Open("file://" + b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		opts.Backend = f
		b.StartTimer()
		res, err := engine.Up(context.Background(), opts, prog)
		if err != nil {
			b.Fatal(err)
		}
		if res.Changes[engine.OpCreate] != 10_001 {
			b.Fatalf("changes %v", res.Changes)
		}
	}
	reportCPU(b, self0, children0)
}

// BenchmarkPluginPreviewNoop10k previews 10,000 unchanged resources (Check
// and Diff each over gRPC) on the folder backend.
func BenchmarkPluginPreviewNoop10k(b *testing.B) {
	prog := thingProgram(10_000)
	pb := newPluginBench(b, b.TempDir())
	if _, err := engine.Up(context.Background(), pb.opts, prog); err != nil {
		b.Fatal(err)
	}
	self0, children0 := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		res, err := engine.Preview(context.Background(), pb.opts, prog)
		if err != nil {
			b.Fatal(err)
		}
		if res.Changes[engine.OpSame] != 10_001 {
			b.Fatalf("changes %v", res.Changes)
		}
	}
	reportCPU(b, self0, children0)
}

// warm starts and configures the plugin process (one resource up on a
// backend of its own), so that a benchmark measures the calls, not the
// process start.
func warm(b *testing.B, opts engine.Options) {
	b.Helper()
	f, err := backend.Open("file://" + b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	opts.Backend = f
	if _, err := engine.Up(context.Background(), opts, thingProgram(1)); err != nil {
		b.Fatal(err)
	}
}

// empty removes the resource files of the plugin's store.
func empty(b *testing.B, store string) {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(store, "*.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuSeconds returns the CPU time (user and system) used so far by this
// process and by its child processes still running (the plugin), read
// from /proc; both are 0 where /proc is not there. On a machine other
// work shares, these vary far less than the wall time.
func cpuSeconds() (self, children float64) {
	self = procCPU("/proc/self/stat")
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, pid := range strings.Fields(string(data)) {
			children += procCPU("/proc/" + pid + "/stat")
		}
	}
	return self, children
}

// procCPU reads utime + stime (in seconds, at 100 ticks a second) from a
// /proc/<pid>/stat file.
func procCPU(path string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(fields[11], 64)
	k, _ := strconv.ParseFloat(fields[12], 64)
	return (u + k) / 100
}

// reportCPU reports the CPU seconds per operation the engine and the
// plugin used since (self0, children0).
func reportCPU(b *testing.B, self0, children0 float64) {
	self, children := cpuSeconds()
	b.ReportMetric((self-self0)/float64(b.N), "engine-cpu-s/op")
	b.ReportMetric((children-children0)/float64(b.N), "plugin-cpu-s/op")
}
