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

// TestRenameThenFailKeepsReferences: an up renames a to a2 (an alias) and
// fails before b registers: b, kept as it was, still depends on and is
// deleted with the resource a became (a2), as Pulumi's engine rewrites
// references to an aliased URN, instead of losing both; so a destroy
// still deletes only a2 in the plugin.
func TestRenameThenFailKeepsReferences(t *testing.T) {
	w, things := deletedWithWorkspace(t)
	w.write(map[string]string{"p/Pulumi.yaml": strings.Replace(deletedWithYAML, "      deletedWith: ${a}\n",
		"      deletedWith: ${a}\n      dependsOn:\n        - ${a}\n", 1)})
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	renamed := strings.Replace(deletedWithYAML, "  a:\n", "  a2:\n", 1)
	renamed = strings.Replace(renamed, "      value: a\n", "      value: a\n    options:\n      aliases:\n        - name: a\n", 1)
	renamed = strings.Replace(renamed, "      deletedWith: ${a}\n",
		"      deletedWith: ${a2}\n      dependsOn:\n        - ${bad}\n", 1)
	renamed += "  bad:\n    type: testprov:index:Thing\n    properties:\n      value: bad\n      checkFail: nope\n" +
		"    options:\n      dependsOn:\n        - ${a2}\n"
	w.write(map[string]string{"p/Pulumi.yaml": renamed})
	w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	a2, b := exported(t, w, "p", "a2"), exported(t, w, "p", "b")
	if a2 == nil || b == nil {
		t.Fatalf("after the failed up the state holds a2 %v, b %v", a2, b)
	}
	if deps, _ := b["dependencies"].([]any); b["deletedWith"] != a2["urn"] || len(deps) != 1 || deps[0] != a2["urn"] {
		t.Errorf("b is recorded as %v, want deletedWith and dependencies %v", b, a2["urn"])
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got, want := things(), []string{"b"}; !equal(got, want) {
		t.Errorf("after destroy the store holds %v, want %v (only a2 deleted by the plugin)", got, want)
	}
}

// TestRenamedParentThenFailSavesState: an up renames x's parent p to p2
// (an alias) and fails before x registers: the state is saved (it was
// refused, x's parent dangling) with x's parent p2.
func TestRenamedParentThenFailSavesState(t *testing.T) {
	w, _ := deletedWithWorkspace(t)
	thing := func(name, value, opts string) string {
		return "  " + name + ":\n    type: testprov:index:Thing\n    properties:\n      value: " + value + "\n" + opts
	}
	head := "name: p\nruntime: yaml\nresources:\n"
	w.write(map[string]string{"p/Pulumi.yaml": head + thing("p", "p", "") + thing("x", "x", "    options:\n      parent: ${p}\n")})
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	w.write(map[string]string{"p/Pulumi.yaml": head + thing("p2", "p", "    options:\n      aliases:\n        - name: p\n") +
		thing("bad", "bad\n      checkFail: nope", "    options:\n      dependsOn:\n        - ${p2}\n") +
		thing("x", "x", "    options:\n      parent: ${p2}\n      dependsOn:\n        - ${bad}\n")})
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if out := r.Stdout + r.Stderr; strings.Contains(out, "saving the state") {
		t.Errorf("the state of the failed up was not saved:\n%s", out)
	}
	p2, x := exported(t, w, "p", "p2"), exported(t, w, "p", "x")
	if p2 == nil || x == nil || x["parent"] != p2["urn"] {
		t.Errorf("after the failed up the state holds p2 %v, x %v", p2, x)
	}
}

// TestExportThenImportOfAYAMLStack: runner imports the stack it exported
// of a YAML program, whose registrations list properties without
// dependencies (recorded as Pulumi records them, an empty list, not null,
// which Pulumi's deployment schema refuses).
func TestExportThenImportOfAYAMLStack(t *testing.T) {
	w, _ := deletedWithWorkspace(t)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	file := filepath.Join(t.TempDir(), "export.json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "p", "--file", file)
	w.ok("-p", "e", "-s", "dev", "stack", "import", "--project", "p", "--file", file)
	if r := w.ok("-p", "e", "-s", "dev", "preview"); strings.Contains(r.Stdout, "create") || strings.Contains(r.Stdout, "update") {
		t.Errorf("the imported stack does not preview unchanged:\n%s", r.Stdout)
	}
}
