package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/event"
	"github.com/runnerhq/runner/runner/orchestrate"
	"github.com/runnerhq/runner/runner/prompt"
	"github.com/runnerhq/runner/runner/term"
)

// graphProvider is a fake provider over a diamond of projects (b and c
// after a, d after both; e alone), each declaring one resource of the
// in-memory plugin that reads its upstream outputs. d exports a URL. A
// project named in fail fails its create; the question has a default.
func graphProvider(fail ...string) *providers.Provider {
	deps := map[string][]string{"a": nil, "b": {"a"}, "c": {"a"}, "d": {"b", "c"}, "e": nil}
	p := &providers.Provider{Name: "fake", Description: "a diamond of in-memory projects",
		Questions: []providers.Question{{Key: "fake:size", Message: "Size", Default: func(func(string) string) string { return "3" }}}}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		ds := deps[name]
		p.Projects = append(p.Projects, providers.Project{Name: name, Category: providers.Infrastructure, DependsOn: ds,
			Program: func(providers.Runtime) engine.Program {
				return func(ctx *engine.Context) error {
					in := engine.Inputs{"name": name, "fail": slices.Contains(fail, name)}
					for _, d := range ds {
						in["from-"+d] = ctx.StackReference(d).Output("value")
					}
					r := ctx.Resource(plugintest.Type, name, in)
					ctx.Export("value", r.Output("name"))
					if name == "d" {
						ctx.Export("url", "https://d.test/")
					}
					return nil
				}
			}})
	}
	return p
}

// failOnInput is the in-memory plugin, failing the creates whose input
// "fail" is true.
type failOnInput struct{ *plugintest.Plugin }

func (f failOnInput) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if fail, _ := req.Inputs.Bool("fail", false); fail && !req.Preview {
		return resource.CreateResponse{}, errors.New("injected failure")
	}
	return f.Plugin.Create(ctx, req)
}

// fixture is a workspace whose operations run on an in-memory backend
// with a fake provider: what a test needs to look at afterwards.
type fixture struct {
	opts    Options
	backend *plugintest.Backend
	out     *bytes.Buffer
}

func newFixture(t *testing.T, p *providers.Provider) *fixture {
	t.Helper()
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "test")
	t.Setenv("PULUMI_STACK", "") // the environment file's value is applied to the process
	f := &fixture{backend: plugintest.NewBackend(), out: &bytes.Buffer{}}
	plug := failOnInput{&plugintest.Plugin{}}
	f.opts = Options{Root: t.TempDir(), Stack: "dev", Provider: p.Name, NonInteractive: true, KeyIterations: testIterations,
		IO:        &term.IO{In: strings.NewReader(""), Out: f.out, Err: &bytes.Buffer{}, NoColor: true},
		Providers: mustRegistry(t, p), Backend: "memory://test",
		Backends: backend.Registry{"memory": func(context.Context, string) (backend.Store, error) { return f.backend, nil }},
		Plugins:  func([]string) []resource.Plugin { return []resource.Plugin{plug} }}
	return f
}

// run runs an operation and returns its summary and events.
func (f *fixture) run(t *testing.T, o OpOptions) (*orchestrate.Summary, []event.Event, error) {
	t.Helper()
	f.out.Reset()
	opts := f.opts
	opts.JSON = true
	s, err := OpenFor(o.Operation, opts)
	if err != nil {
		t.Fatalf("opening the workspace for %s: %v", o.Operation, err)
	}
	sum, err := s.Operate(context.Background(), o)
	return sum, decodeEvents(t, f.out.Bytes()), err
}

func decodeEvents(t *testing.T, out []byte) []event.Event {
	t.Helper()
	var evs []event.Event
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e event.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("a line of the event stream is not JSON: %v\n%s", err, line)
		}
		evs = append(evs, e)
	}
	return evs
}

// resources counts the resources each project has in the backend.
func (f *fixture) resources() map[string]int {
	n := map[string]int{}
	for _, p := range []string{"a", "b", "c", "d", "e"} {
		if snap := f.backend.Get(p, "dev"); snap != nil && len(snap.Resources) > 0 {
			n[p] = len(snap.Resources)
		}
	}
	return n
}

func results(sum *orchestrate.Summary) map[string]string {
	m := map[string]string{}
	for _, r := range sum.Rows {
		m[r.Project] = r.Result
	}
	return m
}

func changes(r event.Row) int {
	return r.Counts["create"] + r.Counts["update"] + r.Counts["replace"] + r.Counts["delete"]
}

func TestOperateUpPreviewDestroy(t *testing.T) {
	f := newFixture(t, graphProvider())
	sum, evs, err := f.run(t, OpOptions{Operation: orchestrate.Up, Yes: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.resources()); got != 5 {
		t.Fatalf("up left state for %d projects, want 5: %v", got, f.resources())
	}
	// Validation's default comes first, as an event; the summary comes last
	// and carries the URL that d exports.
	if evs[0].Type != event.ConfigDefaulted || !slices.Equal(evs[0].Keys, []string{"fake:size"}) {
		t.Errorf("first event %+v, want config-defaulted of fake:size", evs[0])
	}
	last := evs[len(evs)-1]
	if last.Type != event.Summary || last.Result != "succeeded" || !slices.Equal(last.URLs, []string{"https://d.test/"}) {
		t.Errorf("last event %+v, want the summary with d's URL", last)
	}
	for _, e := range evs {
		if e.V != event.Version {
			t.Fatalf("event %s has v=%d, want %d", e.Type, e.V, event.Version)
		}
	}
	if sum.Outputs["d"]["url"] != "https://d.test/" {
		t.Errorf("d's outputs %v", sum.Outputs["d"])
	}

	sum, evs, err = f.run(t, OpOptions{Operation: orchestrate.Preview})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Rows {
		if changes(r) != 0 {
			t.Errorf("preview after up plans changes for %s: %v", r.Project, r.Counts)
		}
	}
	if last := evs[len(evs)-1]; last.Type != event.Summary || last.URLs != nil {
		t.Errorf("the preview's summary %+v: want no URLs (only an up that succeeded has them)", last)
	}

	if _, _, err = f.run(t, OpOptions{Operation: orchestrate.Destroy, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if left := f.resources(); len(left) != 0 {
		t.Fatalf("destroy left resources: %v", left)
	}
}

func TestOperateFailureSkipsDependents(t *testing.T) {
	f := newFixture(t, graphProvider("b"))
	sum, evs, err := f.run(t, OpOptions{Operation: orchestrate.Up, Yes: true})
	if !errors.Is(err, orchestrate.ErrFailed) {
		t.Fatalf("error %v, want ErrFailed", err)
	}
	want := map[string]string{"a": "succeeded", "b": "failed", "c": "succeeded", "d": "skipped", "e": "succeeded"}
	if got := results(sum); !mapsEqual(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
	if got := f.resources(); got["d"] != 0 || got["c"] == 0 {
		t.Errorf("state after the failure: %v (d must not run, c must)", got)
	}
	if last := evs[len(evs)-1]; last.Type != event.Summary || last.Result != "failed" || last.URLs != nil {
		t.Errorf("last event %+v, want a failed summary without URLs", last)
	}

	// The CLI's function marks the error as shown by the summary.
	opts := f.opts
	opts.JSON = true
	err = RunOperation(context.Background(), opts, OpOptions{Operation: orchestrate.Up, Yes: true})
	if !IsReported(err) || !errors.Is(err, orchestrate.ErrFailed) {
		t.Fatalf("RunOperation: %v, want a reported ErrFailed", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestOperateTargets(t *testing.T) {
	tests := []struct {
		name    string
		targets []string
		want    map[string]int // projects with state afterwards
		usage   bool
	}{
		{"one root", []string{"a"}, map[string]int{"a": 1}, false},
		{"two", []string{"a", "e"}, map[string]int{"a": 1, "e": 1}, false},
		{"unknown", []string{"nope"}, map[string]int{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, graphProvider())
			sum, _, err := f.run(t, OpOptions{Operation: orchestrate.Up, Yes: true, Targets: tt.targets})
			if tt.usage {
				if !IsUsage(err) || !strings.Contains(err.Error(), `--target "nope"`) {
					t.Fatalf("error %v, want a usage error naming the target", err)
				}
				if len(f.out.Bytes()) != 0 {
					t.Errorf("a refused target printed events:\n%s", f.out)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := f.resources(); len(got) != len(tt.want) || !sameKeys(got, tt.want) {
				t.Errorf("state for %v, want %v", got, tt.want)
			}
			if sum != nil && len(sum.Rows) != len(tt.targets) {
				t.Errorf("summary rows %v, want one per target", sum.Rows)
			}
		})
	}
}

func sameKeys(a, b map[string]int) bool {
	for k := range b {
		if _, ok := a[k]; !ok {
			return false
		}
	}
	return len(a) == len(b)
}

// Without a terminal, up and destroy need --yes: the refusal is a usage
// error and nothing changes.
func TestOperateConfirmationRefusedWithoutTerminal(t *testing.T) {
	for _, op := range []string{orchestrate.Up, orchestrate.Destroy} {
		t.Run(op, func(t *testing.T) {
			f := newFixture(t, graphProvider())
			if op == orchestrate.Destroy {
				if _, _, err := f.run(t, OpOptions{Operation: orchestrate.Up, Yes: true}); err != nil {
					t.Fatal(err)
				}
			}
			before := f.resources()
			_, evs, err := f.run(t, OpOptions{Operation: op})
			if !IsUsage(err) || !errors.Is(err, prompt.ErrYesRequired) {
				t.Fatalf("error %v, want a usage error for the missing --yes", err)
			}
			if after := f.resources(); !sameKeys(after, before) {
				t.Errorf("a refused %s changed the state: %v, before %v", op, after, before)
			}
			for _, e := range evs {
				if e.Type == event.OperationStart {
					t.Errorf("a refused %s started: %+v", op, e)
				}
			}
		})
	}
}

func TestOperateRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		p    *providers.Provider
		o    OpOptions
		want func(error) bool
	}{
		{"negative parallel", graphProvider(), OpOptions{Operation: orchestrate.Preview, Parallel: -1}, IsUsage},
		{"negative step parallel", graphProvider(), OpOptions{Operation: orchestrate.Up, StepParallel: -2, Yes: true}, IsUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.p)
			if _, _, err := f.run(t, OpOptions{Operation: orchestrate.Up, Yes: true}); err != nil {
				t.Fatal(err)
			}
			before := f.resources()
			_, _, err := f.run(t, tt.o)
			if err == nil || !tt.want(err) {
				t.Fatalf("error %v", err)
			}
			if after := f.resources(); !sameKeys(after, before) {
				t.Errorf("the refused operation changed the state: %v, before %v", after, before)
			}
		})
	}
}

func TestOperatePlainOutput(t *testing.T) {
	f := newFixture(t, graphProvider())
	s, err := OpenFor(orchestrate.Up, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Operate(context.Background(), OpOptions{Operation: orchestrate.Up, Yes: true, NoDurations: true}); err != nil {
		t.Fatal(err)
	}
	out := f.out.String()
	for _, want := range []string{"Defaults taken for the keys " + s.ConfigPath + " does not set (up saves them there): fake:size", "── d · up", "Summary", "URL: https://d.test/\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "URL: https://d.test/\n") {
		t.Errorf("the output does not end with the URL:\n%s", out)
	}
	for _, unwanted := range []string{"ms)", "succeeded in"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("--no-durations output shows a duration (%q):\n%s", unwanted, out)
		}
	}
}

// closedOut fails every write, as a closed stdout does.
type closedOut struct{}

func (closedOut) Write([]byte) (int, error) { return 0, os.ErrClosed }

// The JSON stream's write error is the operation's error, not silence.
func TestOperateReportsAClosedStdout(t *testing.T) {
	for _, asJSON := range []bool{true, false} {
		f := newFixture(t, graphProvider())
		opts := f.opts
		opts.JSON = asJSON
		opts.IO.Out = closedOut{}
		err := RunOperation(context.Background(), opts, OpOptions{Operation: orchestrate.Up, Yes: true})
		if !errors.Is(err, os.ErrClosed) || IsReported(err) {
			t.Errorf("json=%v: error %v, want the write error, not one already shown", asJSON, err)
		}
	}
}

// answer confirms or refuses, and records what it was asked.
type answer struct {
	scripted
	yes   bool
	asked []string
}

func (a *answer) Confirm(msg string, _ bool) (bool, error) {
	a.asked = append(a.asked, msg)
	return a.yes, nil
}

// On a terminal, up first shows the preview, then asks; a refusal changes
// nothing, a yes runs the up.
func TestOperateUpOnATerminalPreviewsThenAsks(t *testing.T) {
	for _, yes := range []bool{false, true} {
		f := newFixture(t, graphProvider())
		a := &answer{yes: yes, scripted: scripted{answers: []string{"3"}}}
		f.opts.Asker = a
		f.opts.NonInteractive = false
		f.opts.IO.StdinTTY, f.opts.IO.StdoutTTY = true, true
		_, evs, err := f.run(t, OpOptions{Operation: orchestrate.Up})
		if len(a.asked) != 1 || !strings.Contains(a.asked[0], "perform this update of stack dev") {
			t.Fatalf("asked %q (error %v)", a.asked, err)
		}
		var ops []string
		for _, e := range evs {
			if e.Type == event.OperationStart {
				ops = append(ops, e.Operation)
			}
		}
		if !yes {
			if err == nil || !strings.Contains(err.Error(), "cancelled: nothing was changed") {
				t.Fatalf("refused: error %v", err)
			}
			if len(f.resources()) != 0 || !slices.Equal(ops, []string{"preview"}) {
				t.Fatalf("refused: state %v, operations %v; want none and a preview", f.resources(), ops)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(f.resources()) != 5 || !slices.Equal(ops, []string{"preview", "up"}) {
			t.Fatalf("confirmed: state %v, operations %v; want 5 projects after a preview and an up", f.resources(), ops)
		}
	}
}

// A negative bound is a usage error (exit 2) even on a stack that does not
// exist (exit 3), and nothing is written to find out.
func TestRunOperationChecksItsOptionsFirst(t *testing.T) {
	dir := t.TempDir()
	err := RunOperation(context.Background(), Options{Root: dir, Stack: "nope", IO: &term.IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}},
		OpOptions{Operation: orchestrate.Preview, Parallel: -1})
	if !IsUsage(err) {
		t.Fatalf("error %v, want a usage error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the refused preview wrote %v", entries)
	}
}
