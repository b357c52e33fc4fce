package plugins

import (
	"fmt"
	"strings"
	"testing"
)

// stepOrder returns "<op> <name>" of every testprov step-done event of a
// --json run, in order.
func stepOrder(stdout string) []string {
	var out []string
	for _, ev := range events(stdout) {
		typ, _ := ev["resource_type"].(string)
		if ev["type"] != "step-done" || !strings.HasPrefix(typ, "testprov:") {
			continue
		}
		urn, _ := ev["urn"].(string)
		out = append(out, fmt.Sprintf("%s %s", ev["op"], urn[strings.LastIndex(urn, "::")+2:]))
	}
	return out
}

// indexOf returns the position of s in list, -1 when absent.
func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// A delete-before-replace replacement of a resource whose dependent must be
// replaced too (its key is the resource's key): the dependent goes first,
// then the resource, then both are created in dependency order; nothing of
// the old resources is left.
func TestDeleteBeforeReplaceWithADependent(t *testing.T) {
	for _, how := range []string{"input", "option"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			spec := func(key string) {
				a := thing("a", map[string]any{"key": key, "dbr": how == "input"})
				if how == "option" {
					a["options"] = map[string]any{"deleteBeforeReplace": true}
				}
				e.spec("one", map[string]any{"resources": []any{a,
					thing("b", map[string]any{"key": map[string]any{"$output": "a.key"}}),
				}})
			}
			spec("k1")
			e.ok("up", "--yes")
			old := e.ids()
			oldA, oldB := e.byURNName()["a"]["id"], e.byURNName()["b"]["id"]

			spec("k2")
			r := e.ok("up", "--yes", "--json")
			order := stepOrder(r.Stdout)
			// Pulumi names the steps of a delete-before-replace
			// replacement: delete-replaced, then create-replacement.
			seq := []string{"delete-replaced b", "delete-replaced a", "create-replacement a", "create-replacement b"}
			last := -1
			for _, s := range seq {
				i := indexOf(order, s)
				if i < 0 || i < last {
					t.Fatalf("want the steps in the order %v, got %v\n%s", seq, order, r)
				}
				last = i
			}
			rs := e.byURNName()
			if len(rs) != 2 {
				t.Fatalf("after the replacement the store holds %v", rs)
			}
			// The plugin's own log lines give the order of its calls.
			calls := []string{"testprov: deleted " + oldB.(string), "testprov: deleted " + oldA.(string),
				"testprov: created " + rs["a"]["id"].(string), "testprov: created " + rs["b"]["id"].(string)}
			var logs []string
			for _, ev := range events(r.Stdout) {
				if m, _ := ev["message"].(string); ev["type"] == "log" && indexOf(calls, m) >= 0 {
					logs = append(logs, m)
				}
			}
			if strings.Join(logs, "\n") != strings.Join(calls, "\n") {
				t.Fatalf("the plugin logged %q, want %q", logs, calls)
			}
			for id := range old {
				if _, ok := e.resources()[id]; ok {
					t.Fatalf("the old resource %s is still in the store", id)
				}
			}
			a, b := rs["a"]["outputs"].(map[string]any), rs["b"]["outputs"].(map[string]any)
			if a["createdAt"].(string) > b["createdAt"].(string) || b["key"] != "k2" {
				t.Fatalf("a created at %v, b at %v with key %v", a["createdAt"], b["createdAt"], b["key"])
			}
			things := 0
			for _, res := range e.exported("one", false) {
				if res.Type == "testprov:index:Thing" {
					things++
				}
			}
			if things != 2 {
				t.Fatalf("state holds %d Things after the replacement, want 2", things)
			}
			got, r := e.counts("up")
			want(t, "up after the replacement", got, r, map[string]int{"create": 0, "update": 0, "create-replacement": 0})
		})
	}
}

// Changing testprov:zone is a DiffConfig replace: every resource of the
// provider is replaced (new IDs, the old ones deleted).
func TestZoneChangeReplacesEveryResource(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok("config", "set", "testprov:zone", "z1")
	e.spec("one", map[string]any{"resources": []any{
		thing("a", map[string]any{"color": "red"}),
		thing("b", map[string]any{"peer": map[string]any{"$output": "a.color"}}),
	}})
	e.spec("three", map[string]any{"resources": []any{thing("c", map[string]any{"n": 1})}})
	e.ok("up", "--yes")
	old := e.ids()
	if len(old) != 3 {
		t.Fatalf("the store holds %v", old)
	}

	e.ok("config", "set", "testprov:zone", "z2")
	got, r := e.counts("preview")
	want(t, "preview of the zone change", got, r, map[string]int{"create-replacement": 3, "delete-replaced": 3})
	got, r = e.counts("up")
	want(t, "up of the zone change", got, r, map[string]int{"create-replacement": 3, "delete-replaced": 3})
	now := e.ids()
	if len(now) != 3 {
		t.Fatalf("after the zone change the store holds %v", now)
	}
	for id := range now {
		if old[id] {
			t.Fatalf("resource %s was not replaced: old %v, now %v", id, old, now)
		}
	}
	for _, res := range e.exported("one", false) {
		if res.Custom && res.Type != "pulumi:providers:testprov" && !now[res.ID] {
			t.Fatalf("state of one holds %s with the id %s, not in the store %v", res.URN, res.ID, now)
		}
	}
	got, r = e.counts("up")
	want(t, "up after the zone change", got, r, map[string]int{"create-replacement": 0, "update": 0})
}
