package orchestrate

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/plugins"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/providers/local"
	"github.com/runnerhq/runner/providers/local/service"
	"github.com/runnerhq/runner/runner/event"
)

var (
	propertySeed       = flag.Uint64("preview.seed", 0, "seed of TestPreviewEqualsUp (0: from $RUNNER_PREVIEW_SEED, else the clock)")
	propertyIterations = flag.Int("preview.iterations", 50, "iterations of TestPreviewEqualsUp (each makes 4 config changes)")
)

// TestMain lets the test binary stand in for the runner binary as the local
// environment's service (`serve-local`), so that the property test needs
// no build of cmd/runner.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve-local" {
		os.Exit(serveLocal(os.Args[2:]))
	}
	flag.Parse()
	os.Exit(m.Run())
}

func serveLocal(args []string) int {
	fs := flag.NewFlagSet("serve-local", flag.ContinueOnError)
	fs.String("workspace", "", "the workspace")
	cfgPath := fs.String("config", "", "the service configuration")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := service.LoadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := service.Serve(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// seed returns the property test's seed and how to replay it.
func seed(t *testing.T) uint64 {
	s := *propertySeed
	if s == 0 {
		if env := os.Getenv("RUNNER_PREVIEW_SEED"); env != "" {
			v, err := strconv.ParseUint(env, 10, 64)
			if err != nil {
				t.Fatalf("RUNNER_PREVIEW_SEED=%q is not a number", env)
			}
			s = v
		}
	}
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d; replay with: go test -race -run %s ./runner/orchestrate -preview.seed %d", s, t.Name(), s)
		}
	})
	return s
}

// localGraph is the local provider's graph as runner builds it, its
// service served by this test binary.
func localGraph(t *testing.T, ws string) []Project {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt := providers.Runtime{Workspace: ws, DataDir: filepath.Join(ws, ".runner", "data", "local", "dev"), Executable: exe, Stack: "dev"}
	var out []Project
	for _, p := range local.New().Projects {
		op := Project{Name: p.Name, DependsOn: p.DependsOn, Program: p.Program(rt)}
		if hook := p.OnSuccess; hook != nil {
			op.OnSuccess = func(ctx context.Context, in HookInput) error {
				return hook(ctx, providers.HookInput{Runtime: rt, Project: in.Project, Outputs: in.Outputs,
					Config: in.Config, Env: in.Env, Log: in.Log})
			}
		}
		out = append(out, op)
	}
	return out
}

// TestPreviewEqualsUp is the property of a whole-graph preview: after
// random changes of the local provider's config (app:port pinned to a free
// port, to the port in use, or unpinned; app:adminPassword), the set of
// (project, URN, operation) that preview lists is the set up does.
func TestPreviewEqualsUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real services")
	}
	rng := rand.New(rand.NewPCG(seed(t), 0))
	ctx := t.Context()
	ws := t.TempDir()
	req := Request{Operation: Up, Stack: "dev", Projects: localGraph(t, ws), Backend: plugintest.NewBackend(),
		Plugins: plugins.Builtin, Config: map[string]any{"app:adminPassword": resource.Secret{Element: "first-password"}}}
	sum, err := Run(ctx, req)
	if err != nil {
		t.Fatalf("first up: %v", err)
	}
	t.Cleanup(func() {
		req.Operation, req.Events = Destroy, nil
		if _, err := Run(context.WithoutCancel(ctx), req); err != nil {
			t.Errorf("destroy: %v", err)
		}
	})
	for i := range *propertyIterations {
		var did []string
		req.Config, did = mutate(t, rng, req.Config, sum.Outputs["network"])
		preview, up := &event.Recorder{}, &event.Recorder{}
		req.Operation, req.Events = Preview, preview
		if _, err := Run(ctx, req); err != nil {
			t.Fatalf("iteration %d (%s): preview: %v", i, strings.Join(did, ", "), err)
		}
		req.Operation, req.Events = Up, up
		if sum, err = Run(ctx, req); err != nil {
			t.Fatalf("iteration %d (%s): up: %v", i, strings.Join(did, ", "), err)
		}
		if p, u := stepSet(preview), stepSet(up); strings.Join(p, "\n") != strings.Join(u, "\n") {
			t.Fatalf("iteration %d (%s): preview listed\n  %s\nup did\n  %s", i, strings.Join(did, ", "),
				strings.Join(p, "\n  "), strings.Join(u, "\n  "))
		}
	}
	t.Logf("%d iterations, %d config changes", *propertyIterations, *propertyIterations*changesPerIteration)
}

// changesPerIteration is how many config changes each iteration makes
// before its preview and up.
const changesPerIteration = 4

// mutate applies changesPerIteration random changes to a copy of cfg. network are
// the network project's outputs after the last up.
func mutate(t *testing.T, rng *rand.Rand, cfg map[string]any, network resource.PropertyMap) (map[string]any, []string) {
	next := make(map[string]any, len(cfg))
	for k, v := range cfg {
		next[k] = v
	}
	var did []string
	for range changesPerIteration {
		switch rng.IntN(4) {
		case 0:
			p := freePort(t)
			next["app:port"] = p
			did = append(did, "app:port="+p+" (free)")
		case 1:
			inUse, _ := network.Int("port", 0)
			next["app:port"] = strconv.Itoa(inUse)
			did = append(did, fmt.Sprintf("app:port=%d (in use)", inUse))
		case 2:
			delete(next, "app:port")
			did = append(did, "app:port unset")
		case 3:
			pw := fmt.Sprintf("password-%d", rng.IntN(3))
			next["app:adminPassword"] = resource.Secret{Element: pw}
			did = append(did, "app:adminPassword="+pw)
		}
	}
	return next, did
}

// freePort returns a TCP port on 127.0.0.1 that is free right now.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// stepSet returns the steps other than same that the events report, as
// "project URN op", sorted.
func stepSet(rec *event.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		if (e.Type == event.StepDone || e.Type == event.StepFailed) && e.Op != "same" {
			out = append(out, e.Project+" "+e.URN+" "+e.Op)
		}
	}
	sort.Strings(out)
	return out
}
