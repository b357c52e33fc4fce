package orchestrate

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/runner/event"
)

// started returns the projects in the order they started.
func started(rec *event.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		if e.Type == event.ProjectStart {
			out = append(out, e.Project)
		}
	}
	return out
}

// TestWalkOrder runs one project at a time: projects start after their
// upstream projects (destroy: after their downstream ones), and of the
// projects ready at once the first declared starts first.
func TestWalkOrder(t *testing.T) {
	// Declared so that declaration order is not alphabetical order.
	deps := map[string][]string{"z": nil, "y": {"z"}, "x": {"z"}, "w": {"x", "y"}, "v": nil}
	order := []string{"z", "x", "y", "v", "w"}
	tests := []struct {
		op   string
		want []string
	}{
		{Up, []string{"z", "x", "y", "v", "w"}},
		{Destroy, []string{"v", "w", "x", "y", "z"}},
	}
	b := plugintest.NewBackend()
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			req, rec := request(tt.op, b, failingPlugin(), chain(deps, order, nil))
			req.Parallel = 1
			if _, err := Run(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if got := started(rec); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("started %v, want %v", got, tt.want)
			}
		})
	}
}

// TestParallelBoundsProjects checks that no more than Parallel projects are
// in flight at once.
func TestParallelBoundsProjects(t *testing.T) {
	var now, peak atomic.Int32
	var ps []Project
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		ps = append(ps, Project{Name: n, Program: func(ctx *engine.Context) error {
			n := now.Add(1)
			defer now.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			ctx.Resource(plugintest.Type, "r", engine.Inputs{"name": "r"})
			return nil
		}})
	}
	req, _ := request(Preview, plugintest.NewBackend(), failingPlugin(), ps)
	req.Parallel = 2
	if _, err := Run(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if peak.Load() > 2 || peak.Load() < 1 {
		t.Errorf("peak projects at once = %d, want at most 2", peak.Load())
	}
}

// TestCancelStopsStartingProjects cancels the context while the first
// project runs: it finishes, and the rest are reported as not started.
func TestCancelStopsStartingProjects(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ps := chain(diamond, diamondOrder, nil)
	prog := ps[0].Program
	ps[0].Program = func(c *engine.Context) error {
		cancel()
		return prog(c)
	}
	req, rec := request(Preview, plugintest.NewBackend(), failingPlugin(), ps)
	req.Parallel = 1
	sum, err := Run(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want it to wrap context.Canceled", err)
	}
	if got := started(rec); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("started %v, want [a]", got)
	}
	for _, r := range sum.Rows {
		if r.Project != "a" && r.Result != "cancelled" {
			t.Errorf("%s: %s, want cancelled", r.Project, r.Result)
		}
	}
}

func TestCheckTargets(t *testing.T) {
	projects := []string{"a", "b"}
	tests := []struct {
		targets []string
		bad     string // the target the error names; "" for none
	}{
		{nil, ""},
		{[]string{"b", "a"}, ""},
		{[]string{"a", "nope", "zz"}, "nope"},
	}
	for _, tt := range tests {
		err := CheckTargets(projects, tt.targets)
		var unknown *UnknownTargetError
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("%v: error %v", tt.targets, err)
		case tt.bad == "":
		case !errors.As(err, &unknown) || unknown.Target != tt.bad || !reflect.DeepEqual(unknown.Known, projects):
			t.Errorf("%v: error %v, want an *UnknownTargetError naming %q", tt.targets, err, tt.bad)
		}
	}
}

// TestCycleIsRefused: a request that bypassed runner/graph with a cycle
// starts nothing and names the projects that could never start.
func TestCycleIsRefused(t *testing.T) {
	deps := map[string][]string{"a": {"b"}, "b": {"a"}, "c": nil}
	req, rec := request(Preview, plugintest.NewBackend(), failingPlugin(), chain(deps, []string{"a", "b", "c"}, nil))
	_, err := Run(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "the projects a, b can never start") {
		t.Fatalf("error %v", err)
	}
	if got := started(rec); len(got) != 0 {
		t.Errorf("started %v, want nothing", got)
	}
}
