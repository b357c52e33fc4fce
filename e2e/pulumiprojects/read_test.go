package pulumiprojects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// getterYAML is a project that reads (get:) the Thing whose ID the maker
// project exports, or, with get false, reads nothing.
func getterYAML(get bool) string {
	if !get {
		return "name: getter\nruntime: yaml\noutputs:\n  seen: nothing\n"
	}
	return `name: getter
runtime: yaml
resources:
  ref:
    type: pulumi:pulumi:StackReference
    properties:
      name: organization/maker/${pulumi.stack}
  seen:
    type: testprov:index:Thing
    get:
      id: ${ref.outputs["id"]}
outputs:
  seen: ${seen.value}
  seenSecret: ${seen.secret}
`
}

// readWorkspace is a workspace of two YAML projects: maker creates a
// Thing and exports its ID, getter (after it) reads that Thing by ID.
func readWorkspace(t *testing.T) (*ws, providertest.Store) {
	t.Helper()
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"maker/Pulumi.yaml":  "name: maker\nruntime: yaml\nconfig:\n  token:\n    type: string\n    secret: true\n    default: \"\"\nresources:\n  thing:\n    type: testprov:index:Thing\n    properties:\n      value: made\n      secret: ${token}\noutputs:\n  id: ${thing.id}\n",
		"getter/Pulumi.yaml": getterYAML(true),
		"runner.yaml":        "providers:\n  e:\n    projects:\n      maker: {path: maker}\n      getter: {path: getter, dependsOn: [maker]}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	return w, store
}

// TestReadResourceThroughTheCLI: a YAML program's get: is recorded as
// Pulumi records a read, external, with the outputs its plugin read; a
// plan made while its ID was not known yet is executed; a second up
// changes nothing; dropping the get from the program drops it from the
// state without deleting the Thing, and so does a destroy of the reading
// project; a get of an ID that does not exist fails naming it.
func TestReadResourceThroughTheCLI(t *testing.T) {
	w, store := readWorkspace(t)
	things := func() []string { return values(t, store) }
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "maker:token", secretToken)
	plan := filepath.Join(t.TempDir(), "plan.json")
	logs := []string{w.ok("-p", "e", "-s", "dev", "preview", "--out", plan).Stdout}
	logs = append(logs, w.ok("-p", "e", "-s", "dev", "up", "--yes", "--plan", plan).Stdout)
	noSecret(t, w.dir, logs) // the secret output read stays secret in getter's state
	if got := w.outputs("getter")["seen"]; got != "made" {
		t.Fatalf("getter's output seen = %v, want the value read from the Thing", got)
	}
	seen := exported(t, w, "getter", "seen")
	if seen == nil || seen["external"] != true || seen["id"] != w.outputs("maker")["id"] {
		t.Fatalf("getter's state records the read Thing as %v", seen)
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a second up counted %v", runnerSummary(t, r))
	}

	w.write(map[string]string{"getter/Pulumi.yaml": getterYAML(false)})
	r := w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if !strings.Contains(r.Stdout, "read-discard") {
		t.Errorf("the up does not show the read Thing dropped:\n%s", r.Stdout)
	}
	if exported(t, w, "getter", "seen") != nil || !equal(things(), []string{"made"}) {
		t.Fatalf("after the get left the program: in the state %v, Things %v", exported(t, w, "getter", "seen"), things())
	}

	w.write(map[string]string{"getter/Pulumi.yaml": getterYAML(true)})
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes", "--target", "getter")
	if !equal(things(), []string{"made"}) {
		t.Fatalf("destroying the reading project deleted the Thing it read: Things %v", things())
	}

	w.write(map[string]string{"maker/Pulumi.yaml": "name: maker\nruntime: yaml\noutputs:\n  id: no-such-thing\n"})
	r = w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if want := `read testprov:index:Thing "seen": no testprov:index:Thing with ID "no-such-thing" exists`; !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("a get of a missing ID does not say %q:\nstdout:\n%s\nstderr:\n%s", want, r.Stdout, r.Stderr)
	}
}

// onlySame reports whether a run's counts are all "same".
func onlySame(c map[string]float64) bool {
	for k, n := range c {
		if k != "same" && n != 0 {
			return false
		}
	}
	return c["same"] > 0
}

// exported returns the resource named name in a project's stack export
// (nil: none).
func exported(t *testing.T, w *ws, project, name string) map[string]any {
	t.Helper()
	file := filepath.Join(t.TempDir(), "export.json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", project, "--file", file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Deployment struct {
			Resources []map[string]any `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, r := range d.Deployment.Resources {
		if urn, _ := r["urn"].(string); strings.HasSuffix(urn, "::"+name) {
			return r
		}
	}
	return nil
}

// TestPulumiCLIPreviewsRunnersReadResource: a stack whose program reads a
// resource (get:) and a stack reference, deployed by runner, exported and
// imported into the Pulumi CLI, previews and updates with no changes
// there, and Pulumi's state then holds the same resources as runner's:
// runner records both reads as Pulumi does (external, the same URNs,
// provider references, the built-in pulumi provider, inputs).
func TestPulumiCLIPreviewsRunnersReadResource(t *testing.T) {
	w, store := readWorkspace(t)
	things := func() []string { return values(t, store) }
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	pl := newPulumi(t, w)
	state := filepath.Join(t.TempDir(), "pulumi-state")
	for _, project := range []string{"maker", "getter"} {
		importIntoPulumi(t, w, pl, project, filepath.Join(w.dir, project), state)
	}
	getter := filepath.Join(w.dir, "getter")
	if r := pl.ok(getter, "preview", "--expect-no-changes", "--diff"); !strings.Contains(r.Stdout, "read") {
		t.Errorf("pulumi preview does not show the read:\n%s", r.Stdout)
	}
	pl.ok(getter, "up", "--yes", "--expect-no-changes")
	sameExports(t, w, pl, "getter", getter)
	if !equal(things(), []string{"made"}) {
		t.Errorf("after Pulumi's up the Things are %v", things())
	}
}

// TestRunnerPreviewsPulumiCLIsReadResource is the reverse: the Pulumi CLI
// deploys maker and getter, runner imports both stacks and previews and
// updates the getter with no change, its reads (the Thing, the stack
// reference) kept as Pulumi recorded them.
func TestRunnerPreviewsPulumiCLIsReadResource(t *testing.T) {
	w, store := readWorkspace(t)
	things := func() []string { return values(t, store) }
	pl := newPulumi(t, w)
	state := filepath.Join(t.TempDir(), "pulumi-state")
	for _, project := range []string{"maker", "getter"} {
		dir := filepath.Join(w.dir, project)
		pl.login(dir, state)
		pl.ok(dir, "stack", "init", "dev")
		pl.ok(dir, "config", "set", "testprov:store", string(store))
		if project == "maker" {
			pl.ok(dir, "config", "set", "--secret", "token", secretToken)
		}
		pl.ok(dir, "up", "--yes")
		importIntoRunner(t, w, pl, project, dir)
	}
	r := w.ok("-p", "e", "-s", "dev", "--json", "preview")
	if c := runnerSummary(t, r); !onlySame(c) {
		t.Errorf("runner's preview of the stacks Pulumi made counted %v\n%s", c, r.Stdout)
	}
	r = w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes")
	if c := runnerSummary(t, r); !onlySame(c) {
		t.Errorf("runner's up of the stacks Pulumi made counted %v\n%s", c, r.Stdout)
	}
	sameExports(t, w, pl, "getter", filepath.Join(w.dir, "getter"))
	if !equal(things(), []string{"made"}) {
		t.Errorf("after runner's up the Things are %v", things())
	}
}

// TestTypeScriptAndGoReadResource: a TypeScript program's read (a
// resource declared with the id option) and a Go program's
// (ctx.ReadResource) are recorded as the YAML get: is, external; a
// TypeScript preview on a fresh stack (the ID not known yet) plans, and a
// second up changes nothing.
func TestTypeScriptAndGoReadResource(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) { testHostedRead(t, rt) })
	}
}

func testHostedRead(t *testing.T, rt string) {
	w, _ := readWorkspace(t)
	if err := os.RemoveAll(filepath.Join(w.dir, "getter")); err != nil {
		t.Fatal(err)
	}
	if rt == "ts" {
		w.jsProject("getter", "getter", `
const ref = new pulumi.StackReference("organization/maker/" + pulumi.getStack());
const seen = new pulumi.CustomResource("testprov:index:Thing", "seen", {value: undefined}, {id: ref.getOutput("id")});
export const seen_ = (seen as any).value;
`)
	} else {
		w.project("go", "getter", "getter", "getter")
	}
	w.ok("-p", "e", "-s", "dev", "preview")
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	outs := w.outputs("getter")
	if got := outs["seen_"]; got != "made" && outs["seen"] != "made" {
		t.Errorf("getter's outputs = %v, want the value read from the Thing", outs)
	}
	if seen := exported(t, w, "getter", "seen"); seen == nil || seen["external"] != true || seen["id"] != w.outputs("maker")["id"] {
		t.Fatalf("getter's state records the read Thing as %v", seen)
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a second up counted %v", runnerSummary(t, r))
	}
}
