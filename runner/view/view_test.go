package view

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/golden"
	"github.com/runnerhq/runner/runner/event"
)

// script is a recorded run: two projects side by side, one failing, one skipped.
func script() []event.Event {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return []event.Event{
		{Type: event.OperationStart, Time: t0, Operation: "up", Stack: "dev", Message: "3 projects"},
		{Type: event.ProjectStart, Time: t0, Operation: "up", Project: "ca"},
		{Type: event.ProjectStart, Time: t0, Operation: "up", Project: "secrets"},
		{Type: event.StepDone, Time: t0, Project: "secrets", Op: "create", URN: "urn:pulumi:dev::secrets::random:index/randomPassword:RandomPassword::session", Resource: "random:index/randomPassword:RandomPassword", DurationMS: 3},
		{Type: event.StepDone, Time: t0, Project: "ca", Op: "create", URN: "urn:pulumi:dev::ca::tls:index/privateKey:PrivateKey::ca", Resource: "tls:index/privateKey:PrivateKey", DurationMS: 40},
		{Type: event.StepFailed, Time: t0, Project: "secrets", Op: "create", URN: "urn:pulumi:dev::secrets::file:index:File::token", Resource: "file:index:File", Error: "permission denied"},
		{Type: event.ProjectDone, Time: t0, Project: "secrets", Operation: "up", Result: "failed", Error: `up "secrets": create file:index:File "token": permission denied`, DurationMS: 10, Counts: map[string]int{"create": 1}},
		{Type: event.StepDone, Time: t0, Project: "ca", Op: "update", URN: "urn:pulumi:dev::ca::file:index:File::bundle", Resource: "file:index:File", Keys: []string{"content"}, DurationMS: 2},
		{Type: event.Outputs, Time: t0, Project: "ca", Outputs: map[string]any{"caCert": "-----BEGIN CERTIFICATE-----", "caKey": "[secret]"}},
		{Type: event.ProjectDone, Time: t0, Project: "ca", Operation: "up", Result: "succeeded", DurationMS: 1500, Counts: map[string]int{"create": 1, "update": 1}},
		{Type: event.ProjectSkipped, Time: t0, Project: "app", Operation: "up", Result: "skipped", Message: "secrets failed"},
		{Type: event.Summary, Time: t0, Operation: "up", Result: "failed", Projects: []event.Row{
			{Project: "ca", Operation: "up", Result: "succeeded", Counts: map[string]int{"create": 1, "update": 1}, DurationMS: 1500},
			{Project: "secrets", Operation: "up", Result: "failed", Counts: map[string]int{"create": 1}, DurationMS: 10, Error: `up "secrets": create file:index:File "token": permission denied`},
			{Project: "app", Operation: "up", Result: "skipped", Error: "skipped: secrets failed"},
		}},
	}
}

func TestPlainGolden(t *testing.T) {
	for _, color := range []bool{false, true} {
		var buf bytes.Buffer
		p := NewPlain(&buf, color)
		for _, e := range script() {
			p.Emit(e)
		}
		name := "plain.golden"
		if color {
			name = "plain-color.golden"
		}
		golden.Check(t, name, buf.Bytes())
	}
}

func TestPlainKeepsBlocksTogether(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, false)
	for _, e := range script() {
		p.Emit(e)
	}
	out := buf.String()
	// The secrets block (finished first) must be whole before the ca block starts.
	s, c := strings.Index(out, "── secrets"), strings.Index(out, "── ca")
	if s < 0 || c < 0 || s > c {
		t.Fatalf("blocks out of order:\n%s", out)
	}
	if strings.Contains(out[s:c], "ca::") {
		t.Fatalf("ca's lines leaked into the secrets block:\n%s", out)
	}
}

func TestPreviewFooterSpeaksOfAPlan(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, false)
	p.Emit(event.Event{Type: event.ProjectStart, Operation: "preview", Project: "ca"})
	p.Emit(event.Event{Type: event.ProjectDone, Operation: "preview", Project: "ca", Result: "succeeded", Counts: map[string]int{"create": 2, "same": 1}})
	if !strings.Contains(buf.String(), "2 to create, 1 unchanged") {
		t.Fatalf("preview footer:\n%s", buf.String())
	}
}

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSON(&buf)
	for _, e := range script() {
		j.Emit(e)
	}
	golden.Check(t, "events.golden", buf.Bytes())
}

func TestLiveDrawsAndClears(t *testing.T) {
	var buf bytes.Buffer
	l := NewLive(&buf, false)
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.mu.Lock()
	l.now = func() time.Time { return fixed }
	l.mu.Unlock()
	for _, e := range script() {
		l.Emit(e)
	}
	l.Close()
	out := buf.String()
	if !strings.Contains(out, "ca (0ms, 0 steps): starting") {
		t.Fatalf("no status line for ca:\n%s", out)
	}
	if !strings.Contains(out, "Summary") || !strings.Contains(out, "\x1b[1A\x1b[J") {
		t.Fatalf("live view did not redraw or summarise:\n%q", out)
	}
}
