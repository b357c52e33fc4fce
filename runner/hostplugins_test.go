package runner

import (
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// TestPluginLogEvent checks how a plugin's log line becomes an event: the
// project of its URN, debug lines only with --debug, warnings and errors as
// warnings, and always a time (the JSON stream's "time" is never zero).
func TestPluginLogEvent(t *testing.T) {
	const urn = "urn:pulumi:dev::one::testprov:index:Thing::a"
	tests := []struct {
		severity string
		debug    bool
		want     event.Type
		shown    bool
	}{
		{"debug", false, "", false},
		{"debug", true, event.Log, true},
		{"info", false, event.Log, true},
		{"warning", false, event.Warning, true},
		{"error", false, event.Warning, true},
	}
	for _, tt := range tests {
		s := &Session{Opts: Options{Debug: tt.debug}}
		ev, ok := s.pluginLogEvent(pluginhost.LogEntry{Severity: tt.severity, Message: "hello", URN: urn})
		if ok != tt.shown {
			t.Errorf("%s (debug %v): shown %v, want %v", tt.severity, tt.debug, ok, tt.shown)
		}
		if !ok {
			continue
		}
		msg := "hello"
		if tt.severity == "error" {
			msg = "error: hello"
		}
		if ev.Type != tt.want || ev.Project != "one" || ev.Message != msg || ev.URN != urn {
			t.Errorf("%s: event %+v", tt.severity, ev)
		}
		if ev.Time.IsZero() {
			t.Errorf("%s: the event has no time", tt.severity)
		}
	}
}

// TestRedactor checks that every secret config value and the passphrase
// are removed from plugin output, the longer ones first.
func TestRedactor(t *testing.T) {
	cfg := map[string]any{
		"testprov:token": resource.Secret{Element: "tok-123"},
		"testprov:long":  resource.Secret{Element: "tok-123-and-more"},
		"testprov:obj":   resource.Secret{Element: map[string]any{"k": "v"}},
		"testprov:zone":  "eu-1",
	}
	r := newRedactor(cfg, "pass phrase")
	tests := []struct{ in, want string }{
		{"token tok-123 here", "token [secret] here"},
		{"tok-123-and-more", "[secret]"},
		{`cfg {"k":"v"}`, "cfg [secret]"},
		{"the pass phrase leaked", "the [secret] leaked"},
		{"zone eu-1 is not secret", "zone eu-1 is not secret"},
	}
	for _, tt := range tests {
		if got := r(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := newRedactor(nil, "")("as is"); got != "as is" {
		t.Errorf("no secrets: %q", got)
	}
}
