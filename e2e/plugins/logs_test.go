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

// A plugin that does not accept secrets gets them in plain text and may
// print them: runner removes every secret config value (and the
// passphrase) from what plugins log and print, --debug included.
func TestPluginLogsRedactSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "tok-very-secret-4711"
	e.ok("config", "set", "--secret", "testprov:token", token)
	e.extra = append(e.extra, "TESTPROV_ACCEPT_SECRETS=false")
	e.spec("one", map[string]any{"resources": []any{
		thing("a", map[string]any{"warn": map[string]any{"$config": "testprov:token"}}),
	}})
	for _, args := range [][]string{{"up", "--yes"}, {"up", "--yes", "--json"}, {"up", "--yes", "--debug"}, {"preview", "--debug", "--json"}} {
		e.spec("one", map[string]any{"resources": []any{
			thing("a", map[string]any{"warn": map[string]any{"$config": "testprov:token"}, "run": strings.Join(args, " ")}),
		}})
		r := e.ok(args...)
		if strings.Contains(r.Stdout+r.Stderr, token) || strings.Contains(r.Stdout+r.Stderr, "e2e-passphrase") {
			t.Fatalf("runner %v shows a secret the plugin logged: %s", args, r)
		}
		if args[0] == "up" && len(args) == 2 {
			must(t, "plain up", block(r.Stdout, "one"), "warning: [secret]")
		}
	}
}
