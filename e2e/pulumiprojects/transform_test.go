package pulumiprojects

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// transformsSecret is the transforms program's secret config value.
const transformsSecret = "hush-transformed"

// transformsWorkspace is a workspace of one project, tf: the transforms
// program of runtime rt, with the test plugin (and, for the Pulumi CLI,
// langhost) on PATH.
func transformsWorkspace(t *testing.T, rt string, pulumi bool) (*ws, providertest.Store) {
	t.Helper()
	w := newWS(t)
	store := w.withHosts(t, false)
	if pulumi {
		w.withLangHosts(t)
	}
	w.project(rt, "transforms", "tf", "tf")
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      tf: {path: tf}\n"})
	return w, store
}

// configureTransforms sets tf's config in runner: the store and the secret.
func configureTransforms(w *ws, store providertest.Store) {
	w.t.Helper()
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "tf:pw", transformsSecret)
}

// TestTransformsThroughTheCLI runs, in TypeScript and Go, a program with a
// stack transform, a component's transform that applies to its child (the
// component's first, then the stack's, as in Pulumi) and changes an
// option, and an invoke transform: the preview plans the transformed
// values, the up creates and records them (the child's secret input
// still secret, retainOnDelete recorded), the invoke got the transformed
// arguments, and a second up changes nothing.
func TestTransformsThroughTheCLI(t *testing.T) {
	for _, rt := range []string{"ts", "go"} {
		t.Run(rt, func(t *testing.T) {
			w, store := transformsWorkspace(t, rt, false)
			configureTransforms(w, store)
			plan := filepath.Join(t.TempDir(), "plan.json")
			logs := []string{w.ok("-p", "e", "-s", "dev", "preview", "--out", plan).Stdout}
			b, err := os.ReadFile(plan)
			if err != nil {
				t.Fatal(err)
			}
			// next's tag is unknown in this first preview, and stays so.
			for _, want := range []string{`"plain+stack"`, `"inner+box+stack"`, `"next+stack"`, `"tag": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("the preview's plan does not hold %s:\n%s", want, b)
				}
			}
			logs = append(logs, string(b), w.ok("-p", "e", "-s", "dev", "up", "--yes").Stdout)
			if got, want := values(t, store), []string{"inner+box+stack", "next+stack", "plain+stack"}; !equal(got, want) {
				t.Errorf("after up the store holds %v, want %v", got, want)
			}
			outs := w.outputs("tf")
			if outs["plainValue"] != "plain+stack" || outs["found"] != "urn:pulumi:dev::tf::testprov:index:Thing::plain" {
				t.Errorf("the stack outputs: %v", outs)
			}
			inner := exported(t, w, "tf", "box-inner")
			in, _ := inner["inputs"].(map[string]any)
			if in["value"] != "inner+box+stack" || inner["retainOnDelete"] != true || inner["parent"] != "urn:pulumi:dev::tf::my:index:Box::box" {
				t.Errorf("box-inner is recorded as %v", inner)
			}
			if s, _ := in["secret"].(map[string]any); s["ciphertext"] == nil {
				t.Errorf("box-inner's secret input is recorded as %v", in["secret"])
			}
			r := w.ok("-p", "e", "-s", "dev", "up", "--yes")
			if strings.Contains(r.Stdout, "update") || strings.Contains(r.Stdout, "create") {
				t.Errorf("the second up changed something:\n%s", r.Stdout)
			}
			for _, l := range append(logs, r.Stdout, r.Stderr) {
				if strings.Contains(l, transformsSecret) {
					t.Errorf("the secret shows:\n%s", l)
				}
			}
		})
	}
}

// TestFailingTransformThroughTheCLI: a transform that throws fails the up
// (exit 1), naming the resource and the program's message once, and
// deletes nothing; so does an invoke transform that throws, named as such.
func TestFailingTransformThroughTheCLI(t *testing.T) {
	w, store := transformsWorkspace(t, "ts", false)
	configureTransforms(w, store)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	w.ok("-p", "e", "-s", "dev", "config", "set", "tf:fail", "box-inner")
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	out := r.Stdout + r.Stderr
	want := `a transform of testprov:index:Thing "box-inner" failed`
	if !strings.Contains(out, want) || !strings.Contains(out, "no box-inner today") {
		t.Errorf("the failed up does not say %q and the program's message:\n%s", want, out)
	}
	if got := values(t, store); len(got) != 3 {
		t.Errorf("a failed transform deleted resources: the store holds %v", got)
	}
	if exported(t, w, "tf", "box-inner") == nil {
		t.Error("a failed transform removed box-inner from the state")
	}

	// The invoke transform throws: named as the invoke's, with the
	// program's message and no gRPC status text.
	w.ok("-p", "e", "-s", "dev", "config", "set", "tf:fail", "getResource")
	r = w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	out = r.Stdout + r.Stderr
	want = `an invoke transform of pulumi:pulumi:getResource failed`
	if !strings.Contains(out, want) || !strings.Contains(out, "no getResource today") || strings.Contains(out, "rpc error") {
		t.Errorf("the failed up does not say %q and the program's message alone:\n%s", want, out)
	}
}

// TestPulumiCLIPreviewsRunnersTransforms: the transforms program deployed
// by runner (TypeScript and Go), exported and imported into the Pulumi
// CLI, previews and updates with no changes there: Pulumi's engine, running
// the same transforms, decides the same inputs and options runner
// recorded, and Pulumi's state then holds the same resources.
func TestPulumiCLIPreviewsRunnersTransforms(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) {
			w, store := transformsWorkspace(t, rt, true)
			pl := newPulumi(t, w)
			configureTransforms(w, store)
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			dir := filepath.Join(w.dir, "tf")
			importIntoPulumi(t, w, pl, "tf", dir, filepath.Join(t.TempDir(), "pulumi-state"))
			if r := pl.ok(dir, "preview", "--expect-no-changes", "--diff"); !strings.Contains(r.Stdout, "5 unchanged") {
				t.Errorf("pulumi preview does not say 5 unchanged:\n%s", r.Stdout)
			}
			sameExports(t, w, pl, "tf", dir)
			pl.ok(dir, "up", "--yes", "--expect-no-changes")
			if got, want := values(t, store), []string{"inner+box+stack", "next+stack", "plain+stack"}; !equal(got, want) {
				t.Errorf("after Pulumi's up the store holds %v, want %v", got, want)
			}
		})
	}
}

// TestCtrlCDuringATransform: Ctrl-C while a transform of the program
// never answers ends the up (exit 130) at once, and the next up
// completes.
func TestCtrlCDuringATransform(t *testing.T) {
	w, store := transformsWorkspace(t, "ts", false)
	configureTransforms(w, store)
	w.ok("-p", "e", "-s", "dev", "config", "set", "tf:hang", "box-inner")
	up := w.start("-p", "e", "-s", "dev", "up", "--yes")
	// plain is created before box-inner's transform is called.
	for deadline := time.Now().Add(90 * time.Second); !slices.Contains(values(t, store), "plain+stack"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			up.kill()
			t.Fatalf("plain was not created:\n%s", up.out.String())
		}
	}
	time.Sleep(time.Second)
	up.interrupt(t, "a transform")
	w.ok("-p", "e", "-s", "dev", "config", "rm", "tf:hang")
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if got, want := values(t, store), []string{"inner+box+stack", "next+stack", "plain+stack"}; !equal(got, want) {
		t.Errorf("after the interrupted up and another, the store holds %v, want %v", got, want)
	}
}

// TestRunnerPreviewsPulumiCLIsTransforms is the reverse: the Pulumi CLI
// deploys the transforms program, and runner, given its stack, previews
// and updates with no change, and holds the same resources.
func TestRunnerPreviewsPulumiCLIsTransforms(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) {
			w, store := transformsWorkspace(t, rt, true)
			pl := newPulumi(t, w)
			dir := filepath.Join(w.dir, "tf")
			pl.login(dir, filepath.Join(t.TempDir(), "pulumi-state"))
			pl.ok(dir, "stack", "init", "dev")
			pl.ok(dir, "config", "set", "testprov:store", string(store))
			pl.ok(dir, "config", "set", "--secret", "pw", transformsSecret)
			pl.ok(dir, "up", "--yes")
			w.ok("-p", "e", "-s", "dev", "stack", "init", "dev")
			importIntoRunner(t, w, pl, "tf", dir)
			for _, args := range [][]string{{"preview"}, {"up", "--yes"}} {
				r := w.ok(append([]string{"-p", "e", "-s", "dev", "--json"}, args...)...)
				if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 5 {
					t.Errorf("runner's %s of the stack Pulumi made: counts %v, want only 5 same\n%s", args[0], c, r.Stdout)
				}
			}
			sameExports(t, w, pl, "tf", dir)
			if got, want := values(t, store), []string{"inner+box+stack", "next+stack", "plain+stack"}; !equal(got, want) {
				t.Errorf("after runner's up the store holds %v, want %v", got, want)
			}
		})
	}
}

// TestResourceHooksRefusedNamingRunner: resource hooks are not served; the
// SDK refuses them, and what runner prints says runner does not support
// them, not that the Pulumi CLI needs an update. Nothing is created.
func TestResourceHooksRefusedNamingRunner(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.jsProject("h", "h", `
const hook = new pulumi.ResourceHook("announce", async () => { console.log("created"); });
new pulumi.CustomResource("testprov:index:Thing", "a", { value: "a" }, { hooks: { afterCreate: [hook] } });
`)
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      h: {path: h}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	out := r.Stdout + r.Stderr
	if !strings.Contains(out, "runner does not support resource hooks yet") || strings.Contains(out, "Please update the Pulumi CLI") {
		t.Errorf("the refused hook does not say runner does not support resource hooks:\n%s", out)
	}
	if got := values(t, store); len(got) != 0 {
		t.Errorf("the refused program created %v", got)
	}
}
