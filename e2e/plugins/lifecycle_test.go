package plugins

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// counts runs an operation with --json and counts the steps done on the
// plugin's resources by operation.
func (e *env) counts(args ...string) (map[string]int, result) {
	e.t.Helper()
	args = append(args, "--json")
	if args[0] != "preview" {
		args = append(args, "--yes")
	}
	r := e.run(args...)
	counts := map[string]int{}
	summary := false
	for _, line := range strings.Split(r.Stdout, "\n") {
		var ev struct {
			Type     string `json:"type"`
			Op       string `json:"op"`
			Resource string `json:"resource_type"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "summary":
			summary = true
		case ev.Type == "step-done" && strings.HasPrefix(ev.Resource, "testprov:"):
			counts[ev.Op]++
		}
	}
	if !summary {
		e.t.Fatalf("runner %v printed no summary: %s", args, r)
	}
	return counts, r
}

// want checks counts of the named ops (others may be anything but those
// named must match exactly; a missing op counts 0).
func want(t *testing.T, what string, got map[string]int, r result, ops map[string]int) {
	t.Helper()
	for op, n := range ops {
		if got[op] != n {
			t.Fatalf("%s: want %d %s, got counts %v\n%s", what, n, op, got, r)
		}
	}
}

func TestLifecycleThroughTheCLI(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{
		"resources": []any{
			thing("a", map[string]any{"color": "red", "key": "k1"}),
			thing("b", map[string]any{"peer": map[string]any{"$output": "a.color"}, "gen": map[string]any{"$output": "a.generation"}}),
		},
		"outputs": map[string]any{"aColor": map[string]any{"$output": "a.color"}, "aID": map[string]any{"$id": "a"}},
	})
	e.spec("two", map[string]any{
		"resources": []any{thing("c", map[string]any{"fromOne": map[string]any{"$stack": "one.aColor"}})},
	})

	got, r := e.counts("preview")
	want(t, "preview of a fresh stack", got, r, map[string]int{"create": 3})
	if n := len(e.resources()); n != 0 {
		t.Fatalf("preview made %d resources", n)
	}

	got, r = e.counts("up")
	want(t, "first up", got, r, map[string]int{"create": 3})
	rs := e.byURNName()
	if len(rs) != 3 || rs["c"]["inputs"].(map[string]any)["fromOne"] != "red" {
		t.Fatalf("after the first up the cloud holds %v", rs)
	}

	got, r = e.counts("up")
	want(t, "second up", got, r, map[string]int{"create": 0, "update": 0, "replace": 0, "delete": 0})

	// An update, then a replacement (create before delete).
	e.spec("one", map[string]any{
		"resources": []any{
			thing("a", map[string]any{"color": "blue", "key": "k1"}),
			thing("b", map[string]any{"peer": map[string]any{"$output": "a.color"}, "gen": map[string]any{"$output": "a.generation"}}),
		},
		"outputs": map[string]any{"aColor": map[string]any{"$output": "a.color"}, "aID": map[string]any{"$id": "a"}},
	})
	got, r = e.counts("preview")
	want(t, "preview of the update", got, r, map[string]int{"update": 3})
	got, r = e.counts("up")
	want(t, "up of the update", got, r, map[string]int{"update": 3})
	if g := e.byURNName()["a"]["outputs"].(map[string]any)["generation"]; g != 2.0 {
		t.Fatalf("a's generation after an update = %v, want 2", g)
	}

	oldID := e.byURNName()["a"]["id"]
	e.spec("one", map[string]any{
		"resources": []any{
			thing("a", map[string]any{"color": "blue", "key": "k2"}),
			thing("b", map[string]any{"peer": map[string]any{"$output": "a.color"}, "gen": map[string]any{"$output": "a.generation"}}),
		},
		"outputs": map[string]any{"aColor": map[string]any{"$output": "a.color"}, "aID": map[string]any{"$id": "a"}},
	})
	got, r = e.counts("up")
	want(t, "up of the replacement", got, r, map[string]int{"create-replacement": 1, "delete-replaced": 1})
	rs = e.byURNName()
	if len(rs) != 3 || rs["a"]["id"] == oldID {
		t.Fatalf("after the replacement the cloud holds %v (old id %v)", rs, oldID)
	}

	// Refresh: one resource changed behind runner's back, one vanished.
	id := rs["b"]["id"].(string)
	path := e.store.Path(id)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), `"blue"`, `"green"`, -1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.store.Path(rs["c"]["id"].(string))); err != nil {
		t.Fatal(err)
	}
	got, r = e.counts("refresh")
	want(t, "refresh", got, r, map[string]int{"refresh": 3})
	if !strings.Contains(r.Stdout, "the resource no longer exists") {
		t.Fatalf("refresh did not say c is gone: %s", r)
	}
	got, r = e.counts("preview")
	want(t, "preview after the refresh", got, r, map[string]int{"update": 1, "create": 1})

	got, r = e.counts("destroy")
	if n := len(e.resources()); n != 0 || r.Code != 0 {
		t.Fatalf("destroy left %d resources (counts %v): %s", n, got, r)
	}
}
