package plugins

import (
	"strings"
	"testing"
	"time"
)

// A plugin's WARNING shows in its project's block of plain output and as a
// warning event of the project with --json; its DEBUG lines show only with
// --debug.
func TestPluginLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	spec := func(color string) {
		e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": color, "warn": "mind the gap"})}})
	}
	spec("red")
	r := e.ok("up", "--yes")
	must(t, "plain up", block(r.Stdout, "one"), "warning: mind the gap")
	if strings.Contains(r.Stdout+r.Stderr, "testprov: creating") {
		t.Fatalf("a DEBUG line shows without --debug: %s", r)
	}

	spec("blue")
	r = e.ok("up", "--yes", "--json")
	found := false
	for _, ev := range events(r.Stdout) {
		if ev["type"] != "warning" || ev["message"] != "mind the gap" {
			continue
		}
		found = true
		if ev["project"] != "one" || !strings.HasSuffix(ev["urn"].(string), "::a") {
			t.Fatalf("the warning event names project %v, urn %v", ev["project"], ev["urn"])
		}
		if at, err := time.Parse(time.RFC3339Nano, ev["time"].(string)); err != nil || at.Year() < 2000 {
			t.Fatalf("the warning event's time is %v", ev["time"])
		}
	}
	if !found {
		t.Fatalf("no warning event with --json: %s", r)
	}
	if strings.Contains(r.Stdout+r.Stderr, "testprov: updating") {
		t.Fatalf("a DEBUG line shows without --debug: %s", r)
	}

	spec("green")
	r = e.ok("up", "--yes", "--debug")
	must(t, "up --debug", block(r.Stdout, "one"), "testprov: updating thing-", "warning: mind the gap")
}
