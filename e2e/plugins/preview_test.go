package plugins

import (
	"strings"
	"testing"
)

// A fresh stack's preview: an output of a resource not yet created flows
// into another resource and, through a stack output, into project two.
// Both show as unknown and no project is skipped.
func TestPreviewUnknownsOnAFreshStack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{
		"resources": []any{
			thing("a", map[string]any{"color": "red"}),
			thing("b", map[string]any{"gen": map[string]any{"$output": "a.generation"}}),
		},
		"outputs": map[string]any{"gen": map[string]any{"$output": "a.generation"}, "bGen": map[string]any{"$output": "b.gen"}},
	})
	e.spec("two", map[string]any{
		"resources": []any{thing("c", map[string]any{"fromOne": map[string]any{"$stack": "one.gen"}})},
		"outputs":   map[string]any{"cFromOne": map[string]any{"$output": "c.fromOne"}},
	})

	r := e.run("preview", "--json")
	if r.Code != 0 {
		t.Fatalf("preview: %s", r)
	}
	outs := map[string]map[string]any{}
	for _, ev := range events(r.Stdout) {
		p, _ := ev["project"].(string)
		switch ev["type"] {
		case "outputs":
			o, _ := ev["outputs"].(map[string]any)
			outs[p] = o
		case "project-done":
			if ev["result"] != "succeeded" {
				t.Fatalf("project %s: %v\n%s", p, ev, r)
			}
		}
	}
	for _, c := range []struct{ project, key string }{{"one", "gen"}, {"one", "bGen"}, {"two", "cFromOne"}} {
		if got := outs[c.project][c.key]; got != "[unknown]" {
			t.Errorf("preview output %s.%s = %v, want [unknown]", c.project, c.key, got)
		}
	}
	got, r := e.counts("preview")
	want(t, "preview", got, r, map[string]int{"create": 3})
	plain := e.ok("preview")
	if strings.Contains(plain.Stdout, "skipped") {
		t.Fatalf("preview skipped a project: %s", plain)
	}
	must(t, "plain preview of two", block(plain.Stdout, "two"), "cFromOne: [unknown]")
	if n := len(e.resources()); n != 0 {
		t.Fatalf("preview made %d resources", n)
	}
}

// 32 Things that sleep 200 ms each: the host runs at least 16 plugin calls
// at once.
func TestSixteenConcurrentCalls(t *testing.T) {
	e := newEnv(t)
	e.spec("three", map[string]any{
		"count":     32,
		"resources": []any{thing("t", map[string]any{"sleepMs": 200})},
	})
	got, r := e.counts("up")
	want(t, "up of 32", got, r, map[string]int{"create": 32})
	if n := len(e.resources()); n != 32 {
		t.Fatalf("the store holds %d resources, want 32", n)
	}
	if m := e.store.MaxInFlight(); m < 16 {
		t.Fatalf("at most %d calls ran at once, want >= 16", m)
	}
}

// An input over 4 MiB (gRPC's default message limit) goes through, and
// the next up finds no change.
func TestLargePayload(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("three", map[string]any{
		"resources": []any{thing("big", map[string]any{"blob": map[string]any{"$repeat": []any{"ab", 3000000}}})},
	})
	got, r := e.counts("up")
	want(t, "up of a 6 MB input", got, r, map[string]int{"create": 1})
	for _, res := range e.resources() {
		if s, _ := res["inputs"].(map[string]any)["blob"].(string); len(s) != 6000000 {
			t.Fatalf("the stored blob has %d bytes, want 6000000", len(s))
		}
	}
	got, r = e.counts("up")
	want(t, "second up", got, r, map[string]int{"create": 0, "update": 0, "replace": 0, "create-replacement": 0})
}
