package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/runner/event"
)

// chain builds projects where each one declares a resource and exports its
// result, and reads its upstream projects' outputs by stack reference.
func chain(deps map[string][]string, order []string, fail map[string]bool) []Project {
	var ps []Project
	for _, name := range order {
		name := name
		ds := deps[name]
		ps = append(ps, Project{Name: name, DependsOn: ds, Program: func(ctx *engine.Context) error {
			in := engine.Inputs{"name": name}
			for _, d := range ds {
				in["from-"+d] = ctx.StackReference(d).Output("value")
			}
			if fail[name] {
				in["fail"] = true
			}
			r := ctx.Resource(plugintest.Type, name, in)
			ctx.Export("value", r.Output("name"))
			return nil
		}})
	}
	return ps
}

// faulty wraps the in-memory plugin with injected failures: creates of
// resources whose input "fail" is true, and deletes for which failDelete
// returns true.
type faulty struct {
	*plugintest.Plugin
	failDelete func(resource.DeleteRequest) bool
}

func (f *faulty) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if fail, _ := req.Inputs.Bool("fail", false); fail && !req.Preview {
		return resource.CreateResponse{}, errors.New("injected failure")
	}
	return f.Plugin.Create(ctx, req)
}

func (f *faulty) Delete(ctx context.Context, req resource.DeleteRequest) error {
	if f.failDelete != nil && f.failDelete(req) {
		return errors.New("injected delete failure")
	}
	return f.Plugin.Delete(ctx, req)
}

func failingPlugin() *faulty { return &faulty{Plugin: &plugintest.Plugin{}} }

func request(op string, b *plugintest.Backend, plug resource.Plugin, projects []Project) (Request, *event.Recorder) {
	rec := &event.Recorder{}
	return Request{Operation: op, Stack: "dev", Projects: projects, Backend: b,
		Plugins: func() []resource.Plugin { return []resource.Plugin{plug} }, Events: rec}, rec
}

var diamond = map[string][]string{"a": nil, "b": {"a"}, "c": {"a"}, "d": {"b", "c"}, "e": nil}
var diamondOrder = []string{"a", "b", "c", "d", "e"}

func rowsByName(s *Summary) map[string]event.Row {
	m := map[string]event.Row{}
	for _, r := range s.Rows {
		m[r.Project] = r
	}
	return m
}

func TestUpThenPreviewThenDestroy(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	plug := failingPlugin()
	req, _ := request(Up, b, plug, chain(diamond, diamondOrder, nil))
	sum, err := Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Outputs["d"]["value"]; got != "d" {
		t.Fatalf("d's output = %v", got)
	}
	req.Operation = Preview
	sum, err = Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Rows {
		if r.Counts["create"]+r.Counts["update"]+r.Counts["delete"]+r.Counts["replace"] != 0 {
			t.Fatalf("preview after up plans changes for %s: %v", r.Project, r.Counts)
		}
	}
	req.Operation = Destroy
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	for _, n := range diamondOrder {
		if snap := b.Get(n, "dev"); snap != nil && len(snap.Resources) > 0 {
			t.Fatalf("%s still has %d resources after destroy", n, len(snap.Resources))
		}
	}
	// A second destroy finds nothing to do and succeeds.
	if _, err := Run(ctx, req); err != nil {
		t.Fatalf("destroy again: %v", err)
	}
}

func TestFailureSkipsDependents(t *testing.T) {
	b := plugintest.NewBackend()
	req, rec := request(Up, b, failingPlugin(), chain(diamond, diamondOrder, map[string]bool{"b": true}))
	sum, err := Run(context.Background(), req)
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "project b failed") {
		t.Fatalf("error %v", err)
	}
	rows := rowsByName(sum)
	want := map[string]string{"a": "succeeded", "b": "failed", "c": "succeeded", "d": "skipped", "e": "succeeded"}
	for n, w := range want {
		if rows[n].Result != w {
			t.Errorf("%s: %s, want %s", n, rows[n].Result, w)
		}
	}
	if rows["d"].Error != "skipped: b failed" {
		t.Errorf("d's error %q", rows["d"].Error)
	}
	if !strings.Contains(rows["b"].Error, "injected failure") {
		t.Errorf("b's error %q does not name the cause", rows["b"].Error)
	}
	evs := rec.Events()
	if last := evs[len(evs)-1]; last.Type != event.Summary || last.Result != "failed" {
		t.Fatalf("last event %+v", last)
	}
}

func TestPreviewOnFreshStackFlowsUnknowns(t *testing.T) {
	b := plugintest.NewBackend()
	req, rec := request(Preview, b, failingPlugin(), chain(diamond, diamondOrder, nil))
	sum, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Rows {
		if r.Result != "succeeded" || r.Counts["create"] == 0 {
			t.Fatalf("preview row %+v", r)
		}
	}
	for _, n := range diamondOrder {
		if b.Get(n, "dev") != nil {
			t.Fatalf("preview saved state for %s", n)
		}
	}
	var sawOutputs bool
	for _, e := range rec.Events() {
		if e.Type == event.Outputs && e.Project == "d" {
			sawOutputs = true
		}
	}
	if !sawOutputs {
		t.Fatal("no outputs event for d")
	}
}

func TestTargets(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	req, _ := request(Up, b, failingPlugin(), chain(diamond, diamondOrder, nil))
	req.Targets = []string{"d"}
	_, err := Run(ctx, req)
	var missing *UndeployedUpstreamError
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "b (needed by d)") || !strings.Contains(err.Error(), "c (needed by d)") {
		t.Fatalf("error %v", err)
	}
	req.Targets = []string{"a", "b", "c"}
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.Targets = []string{"d"}
	sum, err := Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rows) != 1 || sum.Rows[0].Project != "d" {
		t.Fatalf("rows %+v", sum.Rows)
	}
	req.Targets = []string{"nope"}
	if _, err := Run(ctx, req); err == nil || !strings.Contains(err.Error(), "its projects are: a, b, c, d, e") {
		t.Fatalf("unknown target error %v", err)
	}
}

func TestDestroyAfterPartialFailureCanBeRerun(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	plug := failingPlugin()
	req, _ := request(Up, b, plug, chain(diamond, diamondOrder, nil))
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	// b's delete fails once: the first destroy fails half-way.
	failed := false
	plug.failDelete = func(r resource.DeleteRequest) bool {
		if r.URN.Name() == "b" && !failed {
			failed = true
			return true
		}
		return false
	}
	req.Operation = Destroy
	sum, err := Run(ctx, req)
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("first destroy: %v", err)
	}
	rows := rowsByName(sum)
	if rows["b"].Result != "failed" || rows["a"].Result != "skipped" || rows["d"].Result != "succeeded" {
		t.Fatalf("rows %+v", rows)
	}
	if _, err := Run(ctx, req); err != nil {
		t.Fatalf("second destroy: %v", err)
	}
	for _, n := range diamondOrder {
		if snap := b.Get(n, "dev"); snap != nil && len(snap.Resources) > 0 {
			t.Fatalf("%s still has resources", n)
		}
	}
}

func TestHook(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	projects := chain(map[string][]string{"a": nil, "b": {"a"}}, []string{"a", "b"}, nil)
	var got resource.PropertyMap
	projects[0].OnSuccess = func(ctx context.Context, in HookInput) error {
		got = in.Outputs
		fmt.Fprintln(in.Log, "hook ran")
		return nil
	}
	req, rec := request(Up, b, failingPlugin(), projects)
	if _, err := Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got["value"] != "a" {
		t.Fatalf("hook saw outputs %v", got)
	}
	var logged bool
	for _, e := range rec.Events() {
		logged = logged || (e.Type == event.Log && e.Message == "hook ran" && e.Project == "a")
	}
	if !logged {
		t.Fatal("the hook's log line was not reported")
	}
	projects[0].OnSuccess = func(ctx context.Context, in HookInput) error { return errors.New("not healthy") }
	req.Projects = projects
	sum, err := Run(ctx, req)
	if err == nil || rowsByName(sum)["b"].Result != "skipped" || !strings.Contains(rowsByName(sum)["a"].Error, "on_success hook failed: not healthy") {
		t.Fatalf("failing hook: %v %+v", err, sum.Rows)
	}
}

func TestDisplayRedacts(t *testing.T) {
	v := Display(resource.PropertyMap{"a": resource.Secret{Element: "hunter2"}, "b": []any{resource.Computed{}, "x"}})
	s := fmt.Sprint(v)
	if strings.Contains(s, "hunter2") || !strings.Contains(s, "[secret]") || !strings.Contains(s, "[unknown]") {
		t.Fatalf("display %s", s)
	}
}

func TestDisplayAssets(t *testing.T) {
	code := resource.NewTextAsset("print(1)")
	v := Display(resource.PropertyMap{
		"code":   code,
		"site":   resource.NewFileArchive("dist"),
		"ref":    resource.ResourceReference{URN: "urn:pulumi:dev::p::t::n", ID: resource.Computed{}},
		"secret": resource.Secret{Element: resource.NewTextAsset("hunter2-text")},
	}).(map[string]any)
	want := map[string]any{
		"code":   "asset(text, sha256:" + code.Hash[:8] + "…)",
		"site":   `archive(file "dist")`,
		"ref":    "resource(urn:pulumi:dev::p::t::n, id [unknown])",
		"secret": "[secret]",
	}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("Display(%s) = %#v, want %q", k, v[k], w)
		}
	}
}
