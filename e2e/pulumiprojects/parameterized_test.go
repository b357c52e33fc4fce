package pulumiprojects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// fishProgram is a Go program as a parameterized package's generated SDK
// makes it: it registers the package fish 0.5.0, served by the test
// plugin parameterized (ctx.RegisterPackage), and a fish:index:Thing by
// the package's reference.
const fishProgram = `import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

type Thing struct {
	pulumi.CustomResourceState
	Value pulumi.StringOutput ` + "`pulumi:\"value\"`" + `
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		pkg, err := ctx.RegisterPackage(&pulumirpc.RegisterPackageRequest{Name: "testprov", Version: "1.2.3",
			Parameterization: &pulumirpc.Parameterization{Name: "fish", Version: "0.5.0", Value: []byte("fish-spec")}})
		if err != nil {
			return err
		}
		var t Thing
		if err := ctx.RegisterPackageResource("fish:index:Thing", "t", pulumi.Map{"value": pulumi.String("swims")}, &t, pkg.Ref); err != nil {
			return err
		}
		ctx.Export("value", t.Value)
		return nil
	})
}
`

// fishWorkspace is a workspace of the Go project fish (fishProgram) in
// environment e, the test plugin on PATH and its store configured for
// package fish.
func fishWorkspace(t *testing.T) (*ws, providertest.Store) {
	t.Helper()
	w := newWS(t)
	store := w.withHosts(t, false)
	w.goProject("fish", "fish", fishProgram)
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      fish: {path: fish}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "fish:store", string(store))
	return w, store
}

// TestParameterizedPackageThroughTheCLI: a Go program of a parameterized
// package (RegisterPackage, then a resource by its package reference) is
// previewed into a plan, and deployed by it through the test plugin
// parameterized: the resource's outputs
// reach the program, the default provider is recorded as Pulumi records
// it (pulumi:providers:fish::default_0_5_0, the base plugin and the
// parameterization under __internal), a second up and a refresh change
// nothing, and
// destroy deletes the resource through the plugin parameterized again
// from the state. Before, the SDK refused: "the Pulumi CLI does not
// support parameterization".
func TestParameterizedPackageThroughTheCLI(t *testing.T) {
	w, store := fishWorkspace(t)
	plan := filepath.Join(t.TempDir(), "plan.json")
	if c := runnerSummary(t, w.ok("-p", "e", "-s", "dev", "--json", "preview", "--out", plan)); c["create"] != 2 || len(c) != 1 {
		t.Errorf("the preview counted %v, want 2 creates (the stack and the Thing)", c)
	}
	w.ok("-p", "e", "-s", "dev", "up", "--yes", "--plan", plan)
	if got := w.outputs("fish")["value"]; got != "swims" {
		t.Fatalf("the program's output value = %v, want the Thing's output", got)
	}
	if got := values(t, store); !equal(got, []string{"swims"}) {
		t.Fatalf("the store holds %v", got)
	}
	prov := exported(t, w, "fish", "default_0_5_0")
	inputs, _ := prov["inputs"].(map[string]any)
	internal, _ := inputs["__internal"].(map[string]any)
	if prov["type"] != "pulumi:providers:fish" || inputs["version"] != "0.5.0" || internal["name"] != "testprov" ||
		internal["version"] != "1.2.3" || internal["parameterization"] != "ZmlzaC1zcGVj" {
		t.Errorf("the default provider is recorded as %v", prov)
	}
	thing := exported(t, w, "fish", "t")
	if p, _ := thing["provider"].(string); !strings.Contains(p, "::pulumi:providers:fish::default_0_5_0::") || thing["type"] != "fish:index:Thing" {
		t.Errorf("the Thing is recorded as %v", thing)
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a second up counted %v", runnerSummary(t, r))
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "refresh", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a refresh counted %v", runnerSummary(t, r))
	}
	// A state whose recorded parameterization is damaged is refused,
	// naming the provider and what to do, and nothing is deleted.
	saved := filepath.Join(t.TempDir(), "saved.json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "fish", "--file", saved)
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(t.TempDir(), "damaged.json")
	if err := os.WriteFile(damaged, []byte(strings.Replace(string(b), "ZmlzaC1zcGVj", "%%", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	w.ok("-p", "e", "-s", "dev", "stack", "import", "--project", "fish", "--file", damaged)
	r := w.run("-p", "e", "-s", "dev", "destroy", "--yes")
	if want := "its __internal.parameterization is not a base64 value"; r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, want) || len(values(t, store)) != 1 {
		t.Errorf("destroy of a damaged state exited %d, the store holds %v; want it to say %q:\n%s\n%s", r.Code, values(t, store), want, r.Stdout, r.Stderr)
	}
	w.ok("-p", "e", "-s", "dev", "stack", "import", "--project", "fish", "--file", saved)
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}

	// A base plugin that is not installed is named, with its version, the
	// package it serves and how to install it, before anything changes.
	w.goProject("fish", "fish", strings.Replace(fishProgram, `Name: "testprov", Version: "1.2.3"`, `Name: "nosuch", Version: "1.0.0"`, 1))
	w.extra = append(w.extra, "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true")
	r = w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	for _, want := range []string{"nosuch", "1.0.0", "the base plugin of package fish 0.5.0"} {
		if !strings.Contains(r.Stdout+r.Stderr, want) {
			t.Errorf("the up without the base plugin does not say %q:\nstdout:\n%s\nstderr:\n%s", want, r.Stdout, r.Stderr)
		}
	}
}

// TestPulumiCLIPreviewsRunnersParameterizedPackage: the stack runner made
// of a parameterized package, imported into the Pulumi CLI, previews and
// updates with no changes there (the same URNs, provider and
// parameterization), and Pulumi's state then holds the same resources.
func TestPulumiCLIPreviewsRunnersParameterizedPackage(t *testing.T) {
	w, store := fishWorkspace(t)
	w.withLangHosts(t)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	pl := newPulumi(t, w)
	dir := filepath.Join(w.dir, "fish")
	importIntoPulumi(t, w, pl, "fish", dir, filepath.Join(t.TempDir(), "pulumi-state"))
	pl.ok(dir, "preview", "--expect-no-changes", "--diff")
	pl.ok(dir, "up", "--yes", "--expect-no-changes")
	sameExports(t, w, pl, "fish", dir)
	pl.ok(dir, "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after Pulumi's destroy the store holds %v", got)
	}
}

// TestRunnerPreviewsPulumiCLIsParameterizedPackage is the reverse: the
// Pulumi CLI deploys the program, runner imports its stack, previews and
// updates with no change (the provider Pulumi recorded re-parameterizes
// the test plugin), and destroys it.
func TestRunnerPreviewsPulumiCLIsParameterizedPackage(t *testing.T) {
	w, store := fishWorkspace(t)
	w.withLangHosts(t)
	pl := newPulumi(t, w)
	dir := filepath.Join(w.dir, "fish")
	pl.login(dir, filepath.Join(t.TempDir(), "pulumi-state"))
	pl.ok(dir, "stack", "init", "dev")
	pl.ok(dir, "config", "set", "fish:store", string(store))
	pl.ok(dir, "up", "--yes")
	importIntoRunner(t, w, pl, "fish", dir)
	for _, op := range []string{"preview", "up"} {
		args := []string{"-p", "e", "-s", "dev", "--json", op}
		if op == "up" {
			args = append(args, "--yes")
		}
		if c := runnerSummary(t, w.ok(args...)); !onlySame(c) {
			t.Errorf("runner's %s of the stack Pulumi made counted %v", op, c)
		}
	}
	sameExports(t, w, pl, "fish", dir)
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after runner's destroy the store holds %v", got)
	}
}

// TestParameterizedPackageInYAML: a Pulumi YAML program uses package fish
// through a package declaration (as `pulumi package add` writes it): the
// YAML host asks the schema Loader for the parameterized schema and
// registers the package; the Thing is created through the test plugin
// parameterized, a second up changes nothing, destroy deletes it.
func TestParameterizedPackageInYAML(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"fish/Pulumi.yaml": "name: fish\nruntime: yaml\nresources:\n  t:\n    type: fish:index:Thing\n    properties:\n      value: swims\noutputs:\n  value: ${t.value}\n",
		"fish/sdks/fish.yaml": "packageDeclarationVersion: 1\nname: testprov\nversion: 1.2.3\nparameterization:\n" +
			"  name: fish\n  version: 0.5.0\n  value: ZmlzaC1zcGVj\n",
		"runner.yaml": "providers:\n  e:\n    projects:\n      fish: {path: fish}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "fish:store", string(store))
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if got := w.outputs("fish")["value"]; got != "swims" {
		t.Fatalf("the program's output value = %v", got)
	}
	prov := exported(t, w, "fish", "default_0_5_0")
	if inputs, _ := prov["inputs"].(map[string]any); inputs["version"] != "0.5.0" {
		t.Errorf("the default provider is recorded as %v", prov)
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a second up counted %v", runnerSummary(t, r))
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}
}

// TestParameterizedPackageInTypeScript: a TypeScript program of a
// parameterized package (runtime.registerPackage, then a resource by the
// package reference, as its generated SDK does) is deployed through the
// test plugin parameterized, a second up changes nothing, destroy
// deletes it.
func TestParameterizedPackageInTypeScript(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.jsProject("fish", "fish", `
const ref = pulumi.runtime.registerPackage({baseProviderName: "testprov", baseProviderVersion: "1.2.3", baseProviderDownloadUrl: "",
	packageName: "fish", packageVersion: "0.5.0", base64Parameter: "ZmlzaC1zcGVj"});
const t = new pulumi.CustomResource("fish:index:Thing", "t", {value: "swims"}, undefined, undefined, ref);
export const value = (t as any).value;
`)
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      fish: {path: fish}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "fish:store", string(store))
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if got := w.outputs("fish")["value"]; got != "swims" {
		t.Fatalf("the program's output value = %v", got)
	}
	if prov := exported(t, w, "fish", "default_0_5_0"); prov["type"] != "pulumi:providers:fish" {
		t.Errorf("the default provider is recorded as %v", prov)
	}
	if r := w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes"); !onlySame(runnerSummary(t, r)) {
		t.Errorf("a second up counted %v", runnerSummary(t, r))
	}
	w.ok("-p", "e", "-s", "dev", "destroy", "--yes")
	if got := values(t, store); len(got) != 0 {
		t.Errorf("after destroy the store holds %v", got)
	}
}
