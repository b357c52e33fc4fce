package runner

import (
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost"
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
		sev := ""
		if tt.severity == "error" {
			sev = event.SeverityError
		}
		if ev.Type != tt.want || ev.Project != "one" || ev.Message != "hello" || ev.Severity != sev || ev.URN != urn {
			t.Errorf("%s: event %+v", tt.severity, ev)
		}
		if ev.Time.IsZero() {
			t.Errorf("%s: the event has no time", tt.severity)
		}
	}
}
