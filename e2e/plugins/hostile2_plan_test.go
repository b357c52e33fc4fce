package plugins

import (
	"path/filepath"
	"testing"
)

// A plan previewed with auto-named Things (Check's random seed) is executed
// as previewed: the names the up creates are the names the preview showed.
func TestHostile2PlanAutoNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{
		"resources": []any{thing("a", map[string]any{"color": "red"}), thing("b", map[string]any{"peer": map[string]any{"$output": "a.name"}})},
		"outputs":   map[string]any{"aName": map[string]any{"$output": "a.name"}},
	})
	e.spec("two", map[string]any{
		"resources": []any{thing("c", map[string]any{"fromOne": map[string]any{"$stack": "one.aName"}})},
	})
	plan := filepath.Join(t.TempDir(), "plan.json")
	pr := e.ok("preview", "--out", plan, "--json")
	var names []string
	for _, ev := range events(pr.Stdout) {
		if ev["type"] == "step-done" {
			if in, ok := ev["new_inputs"].(map[string]any); ok {
				if n, ok := in["name"].(string); ok {
					names = append(names, n)
				}
			}
		}
	}
	r := e.ok("up", "--plan", plan, "--yes")
	rs := e.byURNName()
	if len(rs) != 3 {
		t.Fatalf("up --plan made %v\n%s", rs, r)
	}
	aName := rs["a"]["inputs"].(map[string]any)["name"]
	if rs["b"]["inputs"].(map[string]any)["peer"] != aName || rs["c"]["inputs"].(map[string]any)["fromOne"] != aName {
		t.Fatalf("names differ: %v", rs)
	}
	t.Logf("preview names %v, a's name %v", names, aName)
	must(t, "preview output", pr.Stdout, aName.(string))
	got, r2 := e.counts("up")
	want(t, "up after up --plan", got, r2, map[string]int{"create": 0, "update": 0, "replace": 0, "create-replacement": 0})
}

// A plan made before a provider config change is refused: exit 3, nothing
// created.
func TestHostile2PlanStaleProviderConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	plan := filepath.Join(t.TempDir(), "plan.json")
	e.ok("preview", "--out", plan)
	e.ok("config", "set", "testprov:zone", "eu-west")
	r := e.fails(3, "up", "--plan", plan, "--yes")
	if n := len(e.resources()); n != 0 {
		t.Fatalf("a refused plan made %d resources: %s", n, r)
	}
	// After an up, a plan made before a zone change (provider replaced) is refused too.
	e.ok("up", "--yes")
	e.ok("preview", "--out", plan)
	e.ok("config", "set", "testprov:zone", "us-east")
	before := e.resources()
	r = e.fails(3, "up", "--plan", plan, "--yes")
	after := e.resources()
	if len(before) != len(after) {
		t.Fatalf("refused plan changed the store: %v -> %v\n%s", before, after, r)
	}
	for id, res := range before {
		if after[id]["outputs"].(map[string]any)["generation"] != res["outputs"].(map[string]any)["generation"] {
			t.Fatalf("refused plan updated %s", id)
		}
	}
	// A secret config change too.
	e.ok("preview", "--out", plan)
	e.ok("config", "set", "--secret", "testprov:token", "tok-abc")
	e.fails(3, "up", "--plan", plan, "--yes")
}
