package plugins

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestHostilePluginLogEventsJSON: with --json, the log and warning events a
// plugin sends (and the --debug lines about it) carry the time they
// happened and the stack, like every other event of the stream.
func TestHostilePluginLogEventsJSON(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"warn": "mind the gap"})}})
	start := time.Now().Add(-time.Minute)
	r := e.ok("up", "--yes", "--json", "--debug")
	seen := map[string]bool{}
	for _, line := range strings.Split(r.Stdout+r.Stderr, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev struct {
			Type, Stack, Message string
			Time                 time.Time
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON event: %s: %v", line, err)
		}
		if !strings.Contains(ev.Message, "testprov") && ev.Message != "mind the gap" {
			continue
		}
		seen[ev.Message] = true
		if ev.Time.Before(start) {
			t.Errorf("the %s event %q has time %s", ev.Type, ev.Message, ev.Time)
		}
		if ev.Stack != "dev" {
			t.Errorf("the %s event %q has stack %q, want dev", ev.Type, ev.Message, ev.Stack)
		}
	}
	if !seen["mind the gap"] {
		t.Fatalf("no event carries the plugin's warning: %s", r)
	}
}
