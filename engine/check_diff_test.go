package engine_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// checkLog records the Check requests of a test plugin.
type checkLog struct {
	mu   sync.Mutex
	reqs []resource.CheckRequest
}

func (l *checkLog) hook(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, req)
	return req.News, nil
}

func (l *checkLog) of(u resource.URN) []resource.CheckRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []resource.CheckRequest
	for _, r := range l.reqs {
		if r.URN == u {
			out = append(out, r)
		}
	}
	return out
}

func TestCheckOldsAndRandomSeed(t *testing.T) {
	e := newEnv(t)
	var log checkLog
	e.plugin.OnCheck = log.hook
	e.plugin.ReplaceKeys = []string{"zone"}
	prog := func(zone string) engine.Program {
		return resources(map[string]engine.Inputs{"a": {"zone": zone}, "b": {"n": 1}})
	}
	e.mustUp(prog("z1"))
	ca, cb := log.of(urn("a")), log.of(urn("b"))
	if len(ca) != 1 || ca[0].Olds == nil || len(ca[0].Olds) != 0 {
		t.Fatalf("create's Check olds = %#v, want an empty non-nil map", ca)
	}
	if len(ca[0].RandomSeed) != 32 || len(cb[0].RandomSeed) != 32 || bytes.Equal(ca[0].RandomSeed, cb[0].RandomSeed) {
		t.Errorf("seeds %x and %x: want 32 random bytes per resource", ca[0].RandomSeed, cb[0].RandomSeed)
	}
	log.reqs = nil
	e.mustUp(prog("z2"))
	ca, cb = log.of(urn("a")), log.of(urn("b"))
	if len(cb) != 1 || cb[0].Olds["n"] != 1.0 {
		t.Errorf("update's Check olds = %v, want the recorded inputs", cb)
	}
	// A replacement checks twice: with the old inputs, then with none.
	if len(ca) != 2 || ca[0].Olds["zone"] != "z1" || ca[1].Olds == nil || len(ca[1].Olds) != 0 {
		t.Errorf("replacement's Checks = %v, want olds then an empty map", ca)
	}
}

func TestPlanReusesRandomSeeds(t *testing.T) {
	e := newEnv(t)
	var log checkLog
	// The plugin derives an auto-name from the seed, as Pulumi's do.
	e.plugin.OnCheck = func(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
		log.hook(ctx, req)
		out := req.News.Copy(1)
		out["name"] = "auto-" + string(rune('a'+req.RandomSeed[0]%26)) + string(rune('a'+req.RandomSeed[1]%26))
		return out, nil
	}
	prog := resources(map[string]engine.Inputs{"a": {}})
	pre, err := e.preview(prog)
	if err != nil {
		t.Fatal(err)
	}
	p := planRoundTrip(t, pre.Plan)
	e.opts.Plan = p
	e.mustUp(prog)
	reqs := log.of(urn("a"))
	if len(reqs) != 2 || !bytes.Equal(reqs[0].RandomSeed, reqs[1].RandomSeed) {
		t.Fatalf("the up's seed differs from the plan's: %v", reqs)
	}
	if got, want := e.find("a").Inputs["name"], p.Steps[1].NewInputs["name"]; got != want {
		t.Errorf("auto-name %v, planned %v", got, want)
	}
}

func TestCheckFailuresNameEachProperty(t *testing.T) {
	e := newEnv(t)
	e.plugin.OnCheck = func(context.Context, resource.CheckRequest) (resource.PropertyMap, error) {
		return nil, &resource.CheckFailuresError{Failures: []resource.CheckFailure{
			{Property: "size", Reason: "must be positive"}, {Property: "zone", Reason: "unknown zone"}}}
	}
	_, err := e.up(resources(map[string]engine.Inputs{"a": {"size": -1}}))
	if err == nil {
		t.Fatal("up succeeded")
	}
	for _, want := range []string{`"a"`, "property size: must be positive", "property zone: unknown zone"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestDiffUnknownAndDetailed(t *testing.T) {
	tests := []struct {
		name      string
		diff      resource.DiffResponse
		size      int
		wantOp    engine.Op
		wantKeys  []string
		wantCheck int // Check calls of the second up (2: re-checked for a replacement)
	}{
		{name: "unknown, inputs changed", diff: resource.DiffResponse{Unknown: true}, size: 2, wantOp: engine.OpUpdate, wantKeys: []string{"size"}, wantCheck: 1},
		{name: "unknown, inputs equal", diff: resource.DiffResponse{Unknown: true}, size: 1, wantOp: engine.OpSame, wantCheck: 1},
		{name: "a change naming no property", diff: resource.DiffResponse{ChangedUnnamed: true}, size: 1, wantOp: engine.OpUpdate, wantCheck: 1},
		{name: "detailed update", size: 2, wantOp: engine.OpUpdate, wantKeys: []string{"tags.env"}, wantCheck: 1,
			diff: resource.DiffResponse{Detailed: map[string]resource.PropertyDiff{"tags.env": {Kind: resource.DiffUpdate}}}},
		{name: "detailed replace without Replaces", size: 2, wantOp: engine.OpReplace, wantKeys: []string{"rules[0].port", "tags.env"}, wantCheck: 2,
			diff: resource.DiffResponse{Changed: []string{"rules", "tags"}, Detailed: map[string]resource.PropertyDiff{
				"tags.env": {Kind: resource.DiffUpdate}, "rules[0].port": {Kind: resource.DiffUpdateReplace}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			prog := func(size int) engine.Program {
				return resources(map[string]engine.Inputs{"a": {"size": size}})
			}
			e.mustUp(prog(1))
			e.plugin.OnDiff = func(context.Context, resource.DiffRequest) (resource.DiffResponse, error) { return tt.diff, nil }
			before := e.plugin.Count("Check")
			pre, err := e.preview(prog(tt.size))
			if err != nil {
				t.Fatal(err)
			}
			if got := e.plugin.Count("Check") - before; got != tt.wantCheck {
				t.Errorf("%d Check calls, want %d", got, tt.wantCheck)
			}
			var step engine.Step
			for _, s := range pre.Plan.Steps {
				if s.URN == urn("a") {
					step = s
				}
			}
			if step.Op != tt.wantOp || strings.Join(step.Keys, ",") != strings.Join(tt.wantKeys, ",") {
				t.Errorf("step %s %v, want %s %v", step.Op, step.Keys, tt.wantOp, tt.wantKeys)
			}
			if tt.wantOp == engine.OpReplace && strings.Join(step.Replaces, ",") != "rules[0].port" {
				t.Errorf("replaces %v, want the replace kinds' paths", step.Replaces)
			}
		})
	}
}

// A plugin whose Check returns an unknown value in a real run must not get
// a create with that value dropped: the step fails naming the property.
func TestUnknownInputsRefusedInARealRun(t *testing.T) {
	e := newEnv(t)
	e.plugin.OnCheck = func(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
		out := req.News.Copy(1)
		out["later"] = resource.Computed{}
		return out, nil
	}
	prog := resources(map[string]engine.Inputs{"a": {"n": 1}})
	if _, err := e.preview(prog); err != nil {
		t.Fatalf("preview with an unknown input: %v", err)
	}
	_, err := e.up(prog)
	if err == nil || !strings.Contains(err.Error(), "not known (later)") {
		t.Fatalf("up with an unknown input: %v", err)
	}
	if e.find("a") != nil {
		t.Fatalf("the resource was recorded: %+v", e.find("a"))
	}
}

// DeleteBeforeReplace(false) overrides a plugin that asks to delete first;
// without the option the plugin decides; DeleteBeforeReplace(true) wins
// over a plugin that creates first.
func TestDeleteBeforeReplaceOptionOverridesThePlugin(t *testing.T) {
	tests := []struct {
		name      string
		pluginDBR bool
		opts      []engine.ResourceOption
		want      bool
	}{
		{"plugin asks, no option", true, nil, true},
		{"plugin asks, option false", true, []engine.ResourceOption{engine.DeleteBeforeReplace(false)}, false},
		{"plugin does not ask, option true", false, []engine.ResourceOption{engine.DeleteBeforeReplace(true)}, true},
		{"neither", false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.plugin.ReplaceKeys = []string{"zone"}
			e.plugin.DeleteBeforeReplace = tt.pluginDBR
			e.mustUp(resources(map[string]engine.Inputs{"a": {"zone": "z1"}}, tt.opts...))
			res, err := e.preview(resources(map[string]engine.Inputs{"a": {"zone": "z2"}}, tt.opts...))
			if err != nil {
				t.Fatal(err)
			}
			var got *engine.Step
			for i := range res.Plan.Steps {
				if res.Plan.Steps[i].URN == urn("a") {
					got = &res.Plan.Steps[i]
				}
			}
			if got == nil || got.Op != engine.OpReplace || got.DeleteBeforeReplace != tt.want {
				t.Fatalf("step %+v, want a replace with DeleteBeforeReplace %v", got, tt.want)
			}
		})
	}
}
