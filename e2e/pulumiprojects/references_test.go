package pulumiprojects

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// refsWorkspace is a workspace of the program refs of runtime rt (a resource
// passed as another's input, a component's method called with it as
// __self__ and another resource's output as an argument) in environment
// e, and the test plugin's store; env is given to runner and so to the
// test plugin.
func refsWorkspace(t *testing.T, rt string, env ...string) (*ws, string) {
	t.Helper()
	w := newWS(t)
	store := w.withHosts(t, false)
	w.extra = append(w.extra, env...)
	w.project(rt, "refs", "refs", "refs")
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      refs: {path: refs}\n"})
	return w, string(store)
}

// TestResourceReferencesFromCode: with runner answering
// resourceReferences and outputValues, the TypeScript and Go SDKs send a
// resource given as an input as a resource reference (previewed with an
// unknown ID, the plan then executed), which reaches the
// plugin as a reference when its Configure accepted resources, else as
// the resource's ID (the state records what the plugin's Check answered,
// as Pulumi's does: the reference, or the ID); a component's method gets
// its __self__ as a reference either way (as Pulumi's Call sends it) and
// an output argument as an output value with its dependency when the
// plugin accepts outputs, else as its plain value (the dependency still
// named), and so does the component's input; a second up changes
// nothing; a replacement of the resource updates the one referring to it.
func TestResourceReferencesFromCode(t *testing.T) {
	for _, rt := range hostedRuntimes {
		for _, accept := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/accept=%v", rt, accept), func(t *testing.T) { referencesFrom(t, rt, accept) })
		}
	}
}

func referencesFrom(t *testing.T, rt string, accept bool) {
	var env []string
	if !accept {
		env = []string{"TESTPROV_ACCEPT_RESOURCES=false", "TESTPROV_ACCEPT_OUTPUTS=false"}
	}
	w, store := refsWorkspace(t, rt, env...)
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", store)
	// The preview's plan (a reference to t with an unknown ID) is what
	// the up executes; the TypeScript program exports t itself, which
	// @pulumi/pulumi marks @isPulumiResource in the preview only (the up
	// refused the plan for it before).
	plan := filepath.Join(t.TempDir(), "plan.json")
	w.ok("-p", "e", "-s", "dev", "preview", "--out", plan)
	w.ok("-p", "e", "-s", "dev", "up", "--yes", "--plan", plan)
	outs := w.outputs("refs")
	tURN, tID := outs["tUrn"], outs["tId"]
	if tURN != "urn:pulumi:dev::refs::testprov:index:Thing::t" || tID == nil {
		t.Fatalf("the stack outputs: %v", outs)
	}
	if got, want := outs["targetUrn"], map[bool]any{true: tURN, false: nil}[accept]; got != want || outs["targetId"] != tID {
		t.Errorf("the plugin saw the reference as targetUrn %v, targetId %v; want %v, %v", got, outs["targetId"], want, tID)
	}
	kind := map[bool]string{true: "output", false: "plain"}[accept]
	if outs["a"] != "hi-a" || outs["valueKind"] != kind {
		t.Errorf("the component answered a %v, valueKind %v; want its value as %s", outs["a"], outs["valueKind"], kind)
	}
	if outs["message"] != "hi from pair" || outs["selfKind"] != "reference" || outs["greetingKind"] != kind ||
		!strings.Contains(fmt.Sprint(outs["greetingDeps"]), fmt.Sprint(tURN)) {
		t.Errorf("the method answered %v; want __self__ as a reference, the greeting as %s depending on t", outs, kind)
	}
	inputs, _ := exported(t, w, "refs", "r")["inputs"].(map[string]any)
	if ref, _ := inputs["target"].(map[string]any); accept && (!isReference(ref, tURN) || ref["id"] != tID) || !accept && inputs["target"] != tID {
		t.Errorf("the state records r's target as %v, want %s", inputs["target"], map[bool]string{true: "a resource reference to t", false: "t's ID"}[accept])
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("the second up changed something:\n%s", r.Stdout)
	}
	// t replaced: r, which refers to it, is updated with its new ID.
	w.ok("-p", "e", "-s", "dev", "config", "set", "refs:key", "k2")
	if c := runnerSummary(t, w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes")); c["replace"] != 1 || c["update"] != 1 {
		t.Errorf("replacing t: counts %v, want t replaced and r updated", c)
	}
	if outs := w.outputs("refs"); outs["tId"] == tID || outs["targetId"] != outs["tId"] {
		t.Errorf("after t's replacement r names %v, t is %v (was %v)", outs["targetId"], outs["tId"], tID)
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
}

// TestPulumiCLIPreviewsRunnersResourceReferences: runner's stack of the
// refs program (TypeScript and Go), whose state records a resource
// reference, imported into the Pulumi CLI, previews and updates with no
// changes there, and both states then hold the same resources.
func TestPulumiCLIPreviewsRunnersResourceReferences(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) {
			w, store := refsWorkspace(t, rt)
			w.withLangHosts(t)
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", store)
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			pl := newPulumi(t, w)
			dir := filepath.Join(w.dir, "refs")
			importIntoPulumi(t, w, pl, "refs", dir, filepath.Join(t.TempDir(), "pulumi-state"))
			pl.ok(dir, "preview", "--expect-no-changes", "--diff")
			pl.ok(dir, "up", "--yes", "--expect-no-changes")
			sameExports(t, w, pl, "refs", dir)
		})
	}
}

// TestRunnerPreviewsPulumiCLIsResourceReferences is the reverse: the
// Pulumi CLI deploys the refs program, and runner imports its stack,
// previews and updates with no change.
func TestRunnerPreviewsPulumiCLIsResourceReferences(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) {
			w, store := refsWorkspace(t, rt)
			w.withLangHosts(t)
			pl := newPulumi(t, w)
			dir := filepath.Join(w.dir, "refs")
			pl.login(dir, filepath.Join(t.TempDir(), "pulumi-state"))
			pl.ok(dir, "stack", "init", "dev")
			pl.ok(dir, "config", "set", "testprov:store", store)
			pl.ok(dir, "up", "--yes")
			w.ok("-p", "e", "-s", "dev", "stack", "init", "dev")
			importIntoRunner(t, w, pl, "refs", dir)
			r := exported(t, w, "refs", "r")
			if ref, _ := r["inputs"].(map[string]any)["target"].(map[string]any); !isReference(ref, "urn:pulumi:dev::refs::testprov:index:Thing::t") {
				t.Errorf("Pulumi's state records r's target as %v, want a resource reference", ref)
			}
			if r := w.ok("-p", "e", "-s", "dev", "--json", "preview"); !onlySame(runnerSummary(t, r)) {
				t.Errorf("runner's preview of the stack Pulumi made changes something:\n%s", r.Stdout)
			}
			if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
				t.Errorf("runner's up of the stack Pulumi made changes something:\n%s", r.Stdout)
			}
			sameExports(t, w, pl, "refs", dir)
		})
	}
}

// isReference reports whether v is a resource reference to urn in a
// stack export.
func isReference(v map[string]any, urn any) bool {
	return v["4dabf18193072939515e22adb298388d"] == "5cf8f73096256a8f31e491e813e4eb8e" && v["urn"] == urn
}
