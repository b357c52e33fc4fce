package pulumiprojects

import (
	"strings"
	"testing"
)

// componentYAML uses the test plugin's multi-language component Pair,
// whose provider (Construct) registers two child Things.
const componentYAML = `name: comp
runtime: yaml
config:
  value:
    type: string
    default: one
resources:
  pair:
    type: testprov:index:Pair
    properties:
      value: ${value}
outputs:
  a: ${pair.a}
  b: ${pair.b}
`

// TestRemoteComponentThroughTheCLI: a YAML program using a component of a
// provider plugin (a remote component, Pulumi's Construct) previews
// without changing anything; up creates the component and the children its
// provider registers, parented to it, with its outputs; a second up is a
// no-op; a changed input is previewed and then updates the children;
// destroy deletes them.
func TestRemoteComponentThroughTheCLI(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{"comp/Pulumi.yaml": componentYAML,
		"runner.yaml": "providers:\n  e:\n    projects:\n      comp: {path: comp}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	things := func() []string { return values(t, store) }

	r := w.ok("-p", "e", "-s", "dev", "preview")
	if len(things()) != 0 || !strings.Contains(r.Stdout, "pair-a") {
		t.Fatalf("the preview of a fresh stack: store %v, output:\n%s", things(), r.Stdout)
	}
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if got := things(); !equal(got, []string{"one-a", "one-b"}) {
		t.Fatalf("after up the store holds %v", got)
	}
	if outs := w.outputs("comp"); outs["a"] != "one-a" || outs["b"] != "one-b" {
		t.Errorf("the stack outputs from the component: %v", outs)
	}
	const stack = "urn:pulumi:dev::comp::pulumi:pulumi:Stack::comp-dev"
	const pair = "urn:pulumi:dev::comp::testprov:index:Pair::pair"
	comp := exported(t, w, "comp", "pair")
	if comp == nil || comp["urn"] != pair || comp["parent"] != stack || comp["custom"] == true {
		t.Fatalf("the state records the component as %v", comp)
	}
	if o, _ := comp["outputs"].(map[string]any); o["a"] != "one-a" {
		t.Errorf("the component's recorded outputs: %v", comp["outputs"])
	}
	for _, n := range []string{"a", "b"} {
		child := exported(t, w, "comp", "pair-"+n)
		if want := "urn:pulumi:dev::comp::testprov:index:Pair$testprov:index:Thing::pair-" + n; child == nil || child["urn"] != want || child["parent"] != pair {
			t.Errorf("the state records child %s as %v, want URN %s parented to the Pair", n, child, want)
		}
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a second up counted %v", runnerSummary(t, r))
	}

	w.ok("-p", "e", "-s", "dev", "config", "set", "comp:value", "two")
	r = w.ok("-p", "e", "-s", "dev", "preview")
	if !strings.Contains(r.Stdout, "update") || !equal(things(), []string{"one-a", "one-b"}) {
		t.Errorf("the preview of a changed input: store %v, output:\n%s", things(), r.Stdout)
	}
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if got := things(); !equal(got, []string{"two-a", "two-b"}) {
		t.Errorf("after the change the store holds %v", got)
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := things(); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}
	if exported(t, w, "comp", "pair") != nil {
		t.Errorf("after destroy the state still records the component")
	}
}

// TestRemoteComponentOfAPluginWithoutConstruct: a program using a
// component of a plugin that serves none fails naming the plugin and the
// component, and creates nothing.
func TestRemoteComponentOfAPluginWithoutConstruct(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.extra = append(w.extra, "TESTPROV_NO_CONSTRUCT=1")
	w.write(map[string]string{"comp/Pulumi.yaml": componentYAML,
		"runner.yaml": "providers:\n  e:\n    projects:\n      comp: {path: comp}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	want := `constructing the component testprov:index:Pair "pair": the testprov plugin serves no components`
	if !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("the failure does not say %q:\nstdout:\n%s\nstderr:\n%s", want, r.Stdout, r.Stderr)
	}
	if got := values(t, store); len(got) != 0 {
		t.Errorf("the failed up created %v", got)
	}
}
