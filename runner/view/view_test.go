package view

import (
	"bytes"
	"errors"
	"os"
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
		{Type: event.ConfigDefaulted, Time: t0, File: "config/pulumi/Pulumi.dev.yaml", Keys: []string{"app:port", "app:name"}},
		{Type: event.Warning, Time: t0, Message: "config/pulumi/Pulumi.dev.yaml line 7: app:password is a secret in plain text"},
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

// failingWriter fails every write, as a closed stdout does.
type failingWriter struct{ calls int }

func (f *failingWriter) Write([]byte) (int, error) {
	f.calls++
	return 0, os.ErrClosed
}

func TestViewsReturnTheirWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		view func(w *failingWriter) (event.Sink, func() error)
	}{
		{"json", func(w *failingWriter) (event.Sink, func() error) { j := NewJSON(w); return j, j.Err }},
		{"plain", func(w *failingWriter) (event.Sink, func() error) { p := NewPlain(w, false); return p, p.Err }},
		{"live", func(w *failingWriter) (event.Sink, func() error) {
			l := NewLive(w, false)
			return l, func() error { l.Close(); return l.Err() }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &failingWriter{}
			sink, done := tt.view(w)
			for _, e := range script() {
				sink.Emit(e)
			}
			err := done()
			if !errors.Is(err, os.ErrClosed) || !strings.Contains(err.Error(), "is incomplete") {
				t.Fatalf("Err() = %v, want the write error", err)
			}
			if w.calls != 1 {
				t.Errorf("the view tried %d writes after the first failed; want it to stop", w.calls-1)
			}
		})
	}
	var buf bytes.Buffer
	j := NewJSON(&buf)
	j.Emit(event.Event{Type: event.Log})
	if err := j.Err(); err != nil {
		t.Fatalf("a JSON view that wrote everything: Err() = %v", err)
	}
}

func TestPlainWithoutDurationsIsReproducible(t *testing.T) {
	var first string
	for run := range 2 {
		var buf bytes.Buffer
		p := NewPlain(&buf, false)
		p.ShowDurations = false
		for _, e := range script() {
			e.DurationMS += int64(run * 1234) // another run, other timings
			for i := range e.Projects {
				e.Projects[i].DurationMS += int64(run * 1234)
			}
			p.Emit(e)
		}
		if strings.Contains(buf.String(), "ms") || strings.Contains(buf.String(), "1.5s") {
			t.Fatalf("a duration is shown:\n%s", buf.String())
		}
		if run == 0 {
			first = buf.String()
		} else if buf.String() != first {
			t.Fatalf("two runs differ without durations:\n%s\n---\n%s", first, buf.String())
		}
	}
}

func TestSummaryListsTheURLs(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, false)
	p.Emit(event.Event{Type: event.Summary, Operation: "up", Result: "succeeded",
		Projects: []event.Row{{Project: "app", Operation: "up", Result: "succeeded"}},
		URLs:     []string{"https://127.0.0.1:8443/", "https://example.test/"}})
	out := buf.String()
	if !strings.HasSuffix(out, "URL: https://127.0.0.1:8443/\nURL: https://example.test/\n") {
		t.Fatalf("the summary does not end with the URLs:\n%s", out)
	}
}

func TestSummaryNamesThePlanFile(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, false)
	p.Emit(event.Event{Type: event.Summary, Operation: "preview", Result: "succeeded",
		Projects: []event.Row{{Project: "app", Operation: "preview", Result: "succeeded"}}, File: "plan.json"})
	if out := buf.String(); !strings.HasSuffix(out, "The plan is in plan.json; `runner up --plan plan.json` executes it.\n") {
		t.Fatalf("the summary does not end with the plan file:\n%s", out)
	}
}

// The --debug lines go above the status area: the area is erased before
// each line and drawn again after it.
func TestLiveDebugPrintsAboveTheStatusArea(t *testing.T) {
	var out, debug bytes.Buffer
	l := NewLive(&out, false)
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.mu.Lock()
	l.now = func() time.Time { return fixed }
	l.mu.Unlock()
	sink := event.Tee(l, l.Above(&debug))
	sink.Emit(event.Event{Type: event.ProjectStart, Operation: "up", Project: "ca"})
	before := out.Len()
	sink.Emit(event.Event{Type: event.StepStart, Project: "ca", Op: "create", URN: "urn:pulumi:dev::ca::t::key"})
	l.Close()
	if !strings.Contains(debug.String(), `"type":"step-start"`) || strings.Count(debug.String(), "\n") != 2 {
		t.Fatalf("debug stream:\n%s", debug.String())
	}
	if strings.Contains(out.String(), `"type"`) {
		t.Fatalf("a debug line went through the status area:\n%q", out.String())
	}
	// The step-start event: the main view redraws (erase, draw), then the
	// debug line erases and draws again.
	if n := strings.Count(out.String()[before:], "\x1b[1A\x1b[J"); n < 2 {
		t.Fatalf("the status area was erased %d times around the debug line:\n%q", n, out.String()[before:])
	}
}

func TestJSONReportsAnEventItCannotEncode(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSON(&buf)
	j.Emit(event.Event{Type: event.Outputs, Project: "ca", Outputs: map[string]any{"bad": func() {}}})
	j.Emit(event.Event{Type: event.Log, Project: "ca", Message: "after"})
	err := j.Err()
	if err == nil || !strings.Contains(err.Error(), `outputs event of project "ca"`) {
		t.Fatalf("Err() = %v, want the encoding error", err)
	}
	if !strings.Contains(buf.String(), `"message":"after"`) {
		t.Fatalf("the events after a bad one are lost:\n%s", buf.String())
	}
}
