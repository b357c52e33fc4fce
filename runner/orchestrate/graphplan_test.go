package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// plannedSteps returns the steps other than same of plans, as changedSteps
// spells them ("project op name"); a replacement is the two steps up
// reports for it.
func plannedSteps(plans map[string]*engine.Plan) []string {
	var out []string
	for name, p := range plans {
		for _, s := range p.Steps {
			switch s.Op {
			case engine.OpSame:
			case engine.OpReplace:
				out = append(out, fmt.Sprintf("%s %s %s", name, engine.OpCreateReplacement, s.URN.Name()),
					fmt.Sprintf("%s %s %s", name, engine.OpDeleteReplaced, s.URN.Name()))
			default:
				out = append(out, fmt.Sprintf("%s %s %s", name, s.Op, s.URN.Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestUpExecutesThePreviewsPlans: a preview returns one plan per project of
// the run, and an up given them does exactly the planned steps, or refuses
// before any project starts when the plans do not cover the run or the
// state changed since.
func TestUpExecutesThePreviewsPlans(t *testing.T) {
	deployed := map[string]any{"a:size": 2048.0, "a:token": resource.Secret{Element: "t1"}}
	changed := map[string]any{"a:size": 4096.0, "a:token": resource.Secret{Element: "t2"}, "a:generation": 2.0}
	tests := []struct {
		name           string
		targets        []string
		between        func(ctx context.Context, req Request) error // runs after the preview
		upTargets      []string
		dropPlan       string
		refused        string // a reason of the *PlanRefusedError
		mismatch       bool   // a project fails with a *engine.PlanMismatchError
		wantPlannedFor []string
	}{
		{name: "the whole graph", wantPlannedFor: []string{"a", "b", "c"}},
		{name: "targets", targets: []string{"a", "b"}, upTargets: []string{"a", "b"}, wantPlannedFor: []string{"a", "b"}},
		{name: "a project without a plan", targets: []string{"a", "b"}, wantPlannedFor: []string{"a", "b"},
			refused: "project c has no plan (the plan covers a, b)"},
		{name: "a plan outside the run", wantPlannedFor: []string{"a", "b", "c"}, upTargets: []string{"a"},
			refused: "the plan has project b, which this run does not include"},
		{name: "another up in between", wantPlannedFor: []string{"a", "b", "c"},
			between: func(ctx context.Context, req Request) error {
				req.Operation, req.Targets, req.Events = Up, []string{"c"}, nil
				_, err := Run(ctx, req)
				return err
			},
			refused: "the state of project c changed since the plan was made"},
		{name: "a step that differs", wantPlannedFor: []string{"a", "b", "c"}, mismatch: true,
			between: func(ctx context.Context, req Request) error {
				req.Config["a:size"] = 1024.0 // the program now declares other inputs
				return nil
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			b := plugintest.NewBackend()
			plug := &plugintest.Plugin{ReplaceKeys: []string{"generation"}}
			req, _ := request(Up, b, plug, relay())
			req.Config = deployed
			if _, err := Run(ctx, req); err != nil {
				t.Fatal(err)
			}
			req.Config = map[string]any{}
			for k, v := range changed {
				req.Config[k] = v
			}
			req.Operation, req.Targets = Preview, tt.targets
			sum, err := Run(ctx, req)
			if err != nil {
				t.Fatalf("preview: %v", err)
			}
			var got []string
			for name, p := range sum.Plans {
				got = append(got, name)
				if base, _ := b.StateDigest(ctx, name, "dev"); p.Base != base || p.Project != name || p.Stack != "dev" {
					t.Errorf("%s's plan is of %s/%s from %q; the state is %q", name, p.Project, p.Stack, p.Base, base)
				}
			}
			sort.Strings(got)
			if fmt.Sprint(got) != fmt.Sprint(tt.wantPlannedFor) {
				t.Fatalf("the preview planned %v, want %v", got, tt.wantPlannedFor)
			}
			if tt.between != nil {
				if err := tt.between(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
			before := map[string]string{}
			for _, n := range []string{"a", "b", "c"} {
				before[n], _ = b.StateDigest(ctx, n, "dev")
			}
			creates := plug.Count("Create") + plug.Count("Update")
			up := &event.Recorder{}
			req.Operation, req.Targets, req.Plans, req.Events = Up, tt.upTargets, sum.Plans, up
			_, err = Run(ctx, req)
			var refused *PlanRefusedError
			switch {
			case tt.refused != "":
				if !errors.As(err, &refused) || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("up = %v, want a refusal saying %q", err, tt.refused)
				}
				for n, d := range before {
					if now, _ := b.StateDigest(ctx, n, "dev"); now != d {
						t.Errorf("the refused up changed the state of %s", n)
					}
				}
				if n := plug.Count("Create") + plug.Count("Update"); n != creates || len(up.Events()) != 0 {
					t.Errorf("the refused up made %d plugin calls and %d events", n-creates, len(up.Events()))
				}
			case tt.mismatch:
				if !errors.Is(err, ErrFailed) || errors.As(err, &refused) {
					t.Fatalf("up = %v, want a failed project", err)
				}
				if got := changedSteps(up); len(got) != 0 {
					t.Errorf("up went past the step that differs: %v", got)
				}
				if !eventSays(up, "a", "differing properties: size") {
					t.Errorf("project a's failure does not say what differs from the plan: %v", up.Events())
				}
			default:
				if err != nil {
					t.Fatalf("up: %v", err)
				}
				if p, u := plannedSteps(sum.Plans), changedSteps(up); fmt.Sprint(p) != fmt.Sprint(u) {
					t.Errorf("the plan has %v, up did %v", p, u)
				}
			}
		})
	}
}

// eventSays reports whether a project-done event of project carries an
// error containing s.
func eventSays(rec *event.Recorder, project, s string) bool {
	for _, e := range rec.Events() {
		if e.Type == event.ProjectDone && e.Project == project && strings.Contains(e.Error, s) {
			return true
		}
	}
	return false
}

func TestOnlyUpExecutesPlans(t *testing.T) {
	req, _ := request(Preview, plugintest.NewBackend(), &plugintest.Plugin{}, relay())
	req.Plans = map[string]*engine.Plan{}
	if _, err := Run(context.Background(), req); err == nil || !strings.Contains(err.Error(), "only up does") {
		t.Fatalf("a preview with plans = %v", err)
	}
}

// A planned up of which a project's lock is held (a process working on that
// project alone) is refused before any project runs: before, the projects
// ahead of it ran, changed their state and so spent the plan, and the run
// then stopped at the locked one.
func TestPlannedUpRefusesAHeldProjectLock(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	plug := &plugintest.Plugin{}
	req, _ := request(Up, b, plug, relay())
	req.Config = map[string]any{"a:size": 2048.0}
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.Config = map[string]any{"a:size": 4096.0}
	req.Operation = Preview
	sum, err := Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	l, err := b.Lock(ctx, "c", "dev", backend.CurrentLockInfo("runner stack import"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	before := map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		before[n], _ = b.StateDigest(ctx, n, "dev")
	}
	calls := plug.Count("Create") + plug.Count("Update")
	req.Operation, req.Plans = Up, sum.Plans
	_, err = Run(ctx, req)
	var locked *backend.LockedError
	if !errors.As(err, &locked) || locked.Project != "c" || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("up = %v, want project c's lock named and nothing changed", err)
	}
	for n, d := range before {
		if now, _ := b.StateDigest(ctx, n, "dev"); now != d {
			t.Errorf("the refused up changed the state of %s", n)
		}
	}
	if n := plug.Count("Create") + plug.Count("Update"); n != calls {
		t.Errorf("the refused up made %d plugin calls", n-calls)
	}
}
