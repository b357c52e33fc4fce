package pulumiprojects

import (
	"path/filepath"
	"strings"
	"testing"
)

// deletedWithYAML is a YAML project p of two Things: a (its name, which
// replaces it when it changes, from config aname) and b, deleted with a.
const deletedWithYAML = `name: p
runtime: yaml
config:
  aname:
    type: string
    default: one
resources:
  a:
    type: testprov:index:Thing
    properties:
      name: ${aname}
      value: a
  b:
    type: testprov:index:Thing
    properties:
      value: b
    options:
      deletedWith: ${a}
`

// deletedWithWorkspace is a workspace of project p (deletedWithYAML) in
// environment e, its store configured.
func deletedWithWorkspace(t *testing.T) (*ws, func() []string) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{"p/Pulumi.yaml": deletedWithYAML, "runner.yaml": "providers:\n  e:\n    projects:\n      p: {path: p}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	return w, func() []string { return values(t, store) }
}

// TestDeletedWithThroughTheCLI: a YAML program's deletedWith (the Pulumi
// YAML host sends it once the monitor supports it) is recorded in the
// state as Pulumi records it; a replacement of a replaces b too (the plan
// its preview saved is what up executes), and the plugin deletes only the
// old a (its delete deletes b; the test plugin
// does not, so the old b stays in its store); a destroy deletes only a in
// the plugin and removes both from the state.
func TestDeletedWithThroughTheCLI(t *testing.T) {
	w, things := deletedWithWorkspace(t)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	a, b := exported(t, w, "p", "a"), exported(t, w, "p", "b")
	if a == nil || b == nil || b["deletedWith"] != a["urn"] {
		t.Fatalf("b is recorded as %v, want deletedWith %v", b, a["urn"])
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "p:aname", "two")
	plan := filepath.Join(t.TempDir(), "plan.json")
	r := w.ok("-p", "e", "-s", "dev", "--json", "preview", "--out", plan)
	if c := runnerSummary(t, r); c["replace"] != 2 {
		t.Errorf("the preview of a's replacement counts %v, want a and b replaced", c)
	}
	w.ok("-p", "e", "-s", "dev", "up", "--yes", "--plan", plan)
	if got, want := things(), []string{"a", "b", "b"}; !equal(got, want) {
		t.Errorf("after the replacement the store holds %v, want %v (the old b left to a's delete)", got, want)
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got, want := things(), []string{"b", "b"}; !equal(got, want) {
		t.Errorf("after destroy the store holds %v, want %v (only a deleted by the plugin)", got, want)
	}
	if a, b := exported(t, w, "p", "a"), exported(t, w, "p", "b"); a != nil || b != nil {
		t.Errorf("after destroy the state holds a %v, b %v", a, b)
	}
}

// TestDeletedWithInterop: runner's state of a deletedWith is Pulumi's. The
// Pulumi CLI (v3.274.1) imports runner's stack, previews no change, and
// its destroy deletes only a; it replaces b with a, as runner does; runner
// imports the Pulumi CLI's stack of the same program and its destroy
// deletes only a too.
func TestDeletedWithInterop(t *testing.T) {
	w, things := deletedWithWorkspace(t)
	pl := newPulumi(t, w)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	dir := filepath.Join(w.dir, "p")
	importIntoPulumi(t, w, pl, "p", dir, filepath.Join(t.TempDir(), "pulumi-state"))
	if r := pl.ok(dir, "preview", "--expect-no-changes", "--diff"); !strings.Contains(r.Stdout, "3 unchanged") {
		t.Errorf("pulumi preview does not say 3 unchanged:\n%s", r.Stdout)
	}
	sameExports(t, w, pl, "p", dir)
	pl.ok(dir, "destroy", "--yes")
	if got, want := things(), []string{"b"}; !equal(got, want) {
		t.Errorf("after Pulumi's destroy of runner's stack the store holds %v, want %v", got, want)
	}

	pl.ok(dir, "up", "--yes")
	pl.ok(dir, "config", "set", "aname", "two")
	if r := pl.ok(dir, "preview"); !strings.Contains(r.Stdout, "2 to replace") {
		t.Errorf("Pulumi's preview of a's replacement does not replace b with it, as runner does:\n%s", r.Stdout)
	}
	pl.ok(dir, "config", "rm", "aname")
	importIntoRunner(t, w, pl, "p", dir)
	if r := w.ok("-p", "e", "-s", "dev", "--json", "preview"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("runner's preview of Pulumi's stack counts %v", runnerSummary(t, r))
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got, want := things(), []string{"b", "b"}; !equal(got, want) {
		t.Errorf("after runner's destroy of Pulumi's stack the store holds %v, want %v", got, want)
	}
}

// TestDeletedWithFromTypeScript: the TypeScript SDK's deletedWith option
// (which it refuses unless the monitor supports it) reaches the state,
// and a destroy deletes only a in the plugin.
func TestDeletedWithFromTypeScript(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.jsProject("p", "p", `
const a = new pulumi.CustomResource("testprov:index:Thing", "a", {value: "a"});
new pulumi.CustomResource("testprov:index:Thing", "b", {value: "b"}, {deletedWith: a});
`)
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      p: {path: p}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if a, b := exported(t, w, "p", "a"), exported(t, w, "p", "b"); a == nil || b == nil || b["deletedWith"] != a["urn"] {
		t.Fatalf("b is recorded as %v, want deletedWith a", b)
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got, want := values(t, store), []string{"b"}; !equal(got, want) {
		t.Errorf("after destroy the store holds %v, want %v (only a deleted by the plugin)", got, want)
	}
}
