package pulumiprojects

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// no-op; refresh keeps them; a changed input is previewed and then updates
// the children; a construct failing midway deletes nothing; destroy
// deletes them.
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

	w.ok("-p", "e", "-s", "dev", "refresh", "--yes")
	if child := exported(t, w, "comp", "pair-b"); child == nil || child["parent"] != pair {
		t.Errorf("after refresh the state records child b as %v", child)
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
	w.ok("-p", "e", "-s", "dev", "config", "set", "comp:value", "fail-construct")
	r = w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if want := `Pair "pair" failing on purpose after its child a`; !strings.Contains(r.Stdout, want) {
		t.Errorf("the failed construct does not say %q:\n%s", want, r.Stdout)
	}
	if got := things(); !equal(got, []string{"fail-construct-a", "two-b"}) {
		t.Errorf("a construct failing midway: the store holds %v, want child a updated and b kept", got)
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

// componentOptionsYAML gives a Pair an explicit provider and a secret
// input, and another Pair an input not known in a fresh stack's preview.
const componentOptionsYAML = `name: comp
runtime: yaml
config:
  token:
    type: string
    secret: true
  dir:
    type: string
resources:
  prov:
    type: pulumi:providers:testprov
    properties:
      store: ${dir}
  seed:
    type: testprov:index:Thing
    properties:
      value: seed
  pair:
    type: testprov:index:Pair
    properties:
      value: ${token}
    options:
      provider: ${prov}
  later:
    type: testprov:index:Pair
    properties:
      value: ${seed.createdAt}
outputs:
  a: ${pair.a}
  later: ${later.a}
`

// TestRemoteComponentOptionsThroughTheCLI: a component given an explicit
// provider has its children on that provider (one step at a time:
// --step-parallel 1); a secret input stays
// secret in the children and the component's outputs; a component whose
// input is not known yet is previewed (dryRun) and the plan of that
// preview is executed.
func TestRemoteComponentOptionsThroughTheCLI(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{"comp/Pulumi.yaml": componentOptionsYAML,
		"runner.yaml": "providers:\n  e:\n    projects:\n      comp: {path: comp}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "comp:dir", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "comp:token", secretToken)
	plan := filepath.Join(t.TempDir(), "plan.json")
	logs := []string{w.ok("-p", "e", "-s", "dev", "preview", "--out", plan).Stdout}
	if got := values(t, store); len(got) != 0 {
		t.Fatalf("the preview created %v", got)
	}
	logs = append(logs, w.ok("-p", "e", "-s", "dev", "up", "--yes", "--step-parallel", "1", "--plan", plan).Stdout)
	rs, err := store.Resources()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(rs); len(rs) != 5 || !strings.Contains(string(b), secretToken+"-b") {
		t.Fatalf("after up the store holds %s", b) // a secret's plaintext is the fake cloud's
	}
	outs := w.outputs("comp")
	if outs["a"] != "[secret]" || !strings.HasSuffix(fmt.Sprint(outs["later"]), "-a") {
		t.Errorf("the stack outputs: %v", outs)
	}
	const explicit = "urn:pulumi:dev::comp::pulumi:providers:testprov::prov::"
	for _, n := range []string{"pair-a", "pair-b"} {
		if p, _ := exported(t, w, "comp", n)["provider"].(string); !strings.HasPrefix(p, explicit) {
			t.Errorf("child %s's provider is %q, want the explicit one", n, p)
		}
	}
	if p, _ := exported(t, w, "comp", "later-a")["provider"].(string); !strings.HasPrefix(p, "urn:pulumi:dev::comp::pulumi:providers:testprov::default") {
		t.Errorf("child later-a's provider is %q, want the default one", p)
	}
	logs = append(logs, w.ok("-p", "e", "-s", "dev", "destroy", "--yes").Stdout)
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}
	noSecret(t, w.dir, logs)
}

// TestRemoteComponentFromCode: a TypeScript or Go program declaring the
// Pair as a generated SDK declares a remote component gets its outputs
// (and, in TypeScript, the answer of its method, Pulumi's Call);
// the state holds it and its children under it; a changed input updates
// the children; destroy deletes them.
func TestRemoteComponentFromCode(t *testing.T) {
	for _, rt := range []string{"ts", "go"} {
		t.Run(rt, func(t *testing.T) { remoteComponentFrom(t, rt) })
	}
}

func remoteComponentFrom(t *testing.T, runtime string) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.project(runtime, "pair", "pair", "pair")
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      pair: {path: pair}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	outs := w.outputs("pair")
	if outs["a"] != "one-a" || outs["b"] != "one-b" {
		t.Errorf("the stack outputs from the component: %v", outs)
	}
	if runtime == "ts" && outs["message"] != "hi from pair" {
		t.Errorf("the component's method answered %v, want %q", outs["message"], "hi from pair")
	}
	const pair = "urn:pulumi:dev::pair::testprov:index:Pair::pair"
	if child := exported(t, w, "pair", "pair-b"); child == nil || child["parent"] != pair {
		t.Errorf("the state records child b as %v, want it parented to %s", child, pair)
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "pair:value", "two")
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if got := values(t, store); !equal(got, []string{"two-a", "two-b"}) {
		t.Errorf("after the change the store holds %v", got)
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}
}

// TestPulumiCLIPreviewsRunnersRemoteComponent: a stack with a remote
// component deployed by runner, exported and imported into the Pulumi
// CLI, previews and updates with no changes there (Pulumi's engine calls
// the same Construct), and Pulumi's state then holds the same resources
// as runner's: the component and its children recorded as Pulumi records
// them (URNs, parents, providers, inputs).
func TestPulumiCLIPreviewsRunnersRemoteComponent(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{"comp/Pulumi.yaml": componentYAML,
		"runner.yaml": "providers:\n  e:\n    projects:\n      comp: {path: comp}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	pl := newPulumi(t, w)
	tmp := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(w.dir, "config", "pulumi", "Pulumi.dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(w.dir, "comp")
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.dev.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(tmp, "comp.json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "comp", "--file", export)
	pl.login(dir, filepath.Join(tmp, "pulumi-state"))
	pl.ok(dir, "stack", "init", "dev")
	pl.ok(dir, "stack", "import", "--file", export)
	pl.ok(dir, "preview", "--expect-no-changes", "--diff")
	pl.ok(dir, "up", "--yes", "--expect-no-changes")
	pexport := filepath.Join(tmp, "pulumi.json")
	pl.ok(dir, "stack", "export", "--file", pexport)
	sameResources(t, "runner's export", readDeployment(t, export), "Pulumi's export after its up", readDeployment(t, pexport))
	if got := values(t, store); !equal(got, []string{"one-a", "one-b"}) {
		t.Errorf("after Pulumi's up the store holds %v", got)
	}
}

// TestRemoteComponentOfAnUnconfiguredProvider: in a fresh stack's
// preview, a component whose explicit provider's configuration is not
// known yet is registered alone (as Pulumi's engine does: its provider
// cannot construct it), and the up then constructs it.
func TestRemoteComponentOfAnUnconfiguredProvider(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	program := strings.Replace(componentOptionsYAML, "      store: ${dir}\n", "      store: ${dir}\n      token: ${seed.createdAt}\n", 1)
	w.write(map[string]string{"comp/Pulumi.yaml": program,
		"runner.yaml": "providers:\n  e:\n    projects:\n      comp: {path: comp}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "comp:dir", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "comp:token", secretToken)
	r := w.ok("-p", "e", "-s", "dev", "preview")
	if !strings.Contains(r.Stdout, "testprov:index:Pair pair") || strings.Contains(r.Stdout, "pair-a") || !strings.Contains(r.Stdout, "later-a") {
		t.Errorf("the preview does not show the Pair of the unconfigured provider alone (and the other's children):\n%s", r.Stdout)
	}
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if p, _ := exported(t, w, "comp", "pair-a")["provider"].(string); !strings.HasPrefix(p, "urn:pulumi:dev::comp::pulumi:providers:testprov::prov::") {
		t.Errorf("after up child pair-a's provider is %q, want the explicit one", p)
	}
}

// TestCtrlCDuringARemoteComponent: Ctrl-C while a component's provider is
// constructing it (its children's creates running) ends the up with exit
// 130 promptly, and the next up finishes the component.
func TestCtrlCDuringARemoteComponent(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	slow := strings.Replace(componentYAML, "      value: ${value}\n", "      value: ${value}\n      sleepMs: ${sleep}\n", 1)
	slow = strings.Replace(slow, "config:\n", "config:\n  sleep:\n    type: integer\n    default: 0\n", 1)
	w.write(map[string]string{"comp/Pulumi.yaml": slow,
		"runner.yaml": "providers:\n  e:\n    projects:\n      comp: {path: comp}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "comp:sleep", "60000")
	up := w.start("-p", "e", "-s", "dev", "up", "--yes")
	time.Sleep(4 * time.Second) // the children's creates sleep by now
	up.interrupt(t, "the construct")
	if !strings.Contains(up.out.String(), "create   testprov:index:Pair pair") {
		t.Errorf("the interrupted up had not reached the component:\n%s", up.out.String())
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "comp:sleep", "0")
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if outs := w.outputs("comp"); outs["a"] != "one-a" || outs["b"] != "one-b" {
		t.Errorf("after the interrupted up, the next up's outputs: %v", outs)
	}
}
