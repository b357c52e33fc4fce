package pulumiprojects

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/internal/testenv"
)

// pulumiCLIVersion is the Pulumi CLI that .ci/pulumicli builds into the
// CI cache.
const pulumiCLIVersion = "v3.274.1"

// pulumiCLI returns the Pulumi CLI to run beside runner: a pulumi on PATH,
// else the one .ci/pulumicli builds into the CI cache; without either the
// test is unavailable (a skip here, a failure under CI, where .ci/run
// builds it).
func pulumiCLI(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("pulumi"); err == nil {
		return p
	}
	p := filepath.Join(cacheDir(), "pulumi-cli-"+pulumiCLIVersion, "pulumi")
	if _, err := os.Stat(p); err != nil {
		testenv.Unavailable(t, "no Pulumi CLI: pulumi is not on PATH and "+p+" does not exist; run .ci/pulumicli to build it")
	}
	return p
}

// pulumiRun is the Pulumi CLI for one test: its own PULUMI_HOME, the test
// plugin and the YAML host on PATH (as ambient plugins), the passphrase
// runner's runs use, no update check.
type pulumiRun struct {
	t   testing.TB
	bin string
	env []string
}

func newPulumi(t testing.TB, w *ws) *pulumiRun {
	t.Helper()
	p := &pulumiRun{t: t, bin: pulumiCLI(t)}
	for _, kv := range w.environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PULUMI_HOME" || strings.HasPrefix(k, "PULUMI_BACKEND") || k == "PULUMI_ACCESS_TOKEN" {
			continue
		}
		p.env = append(p.env, kv)
	}
	p.env = append(p.env, "PULUMI_HOME="+filepath.Join(t.TempDir(), "pulumi-home"), "PULUMI_SKIP_UPDATE_CHECK=1",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true", "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1")
	return p
}

// run runs pulumi args in dir.
func (p *pulumiRun) run(dir string, args ...string) result {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.bin, append(args, "--non-interactive")...)
	cmd.Dir, cmd.Env = dir, p.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		p.t.Fatalf("running pulumi %v: %v", args, err)
	}
	return res
}

// login logs the Pulumi CLI in to a new file:// backend in folder state.
func (p *pulumiRun) login(dir, state string) {
	p.t.Helper()
	if err := os.MkdirAll(state, 0o755); err != nil {
		p.t.Fatal(err)
	}
	p.ok(dir, "login", "file://"+state)
}

// ok runs pulumi and fails the test unless it exits 0.
func (p *pulumiRun) ok(dir string, args ...string) result {
	p.t.Helper()
	r := p.run(dir, args...)
	if r.Code != 0 {
		p.t.Fatalf("pulumi %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// chainWorkspace is a workspace of the YAML chain project (three testprov
// resources, a secret config value, outputs) in environment e, its store
// and plugins ready for runner and the Pulumi CLI alike.
func chainWorkspace(t *testing.T) (*ws, providertest.Store) {
	t.Helper()
	return chainWorkspaceOf(t, "yaml")
}

// chainWorkspaceOf is chainWorkspace for the chain program of runtime rt
// (yaml, ts or go; for ts and go langhost is the Pulumi CLI's host).
func chainWorkspaceOf(t *testing.T, rt string) (*ws, providertest.Store) {
	t.Helper()
	w := newWS(t)
	store := w.withHosts(t, rt == "yaml")
	if rt != "yaml" {
		w.withLangHosts(t)
	}
	w.project(rt, "chain", "chain", "chain")
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      chain: {path: chain}\n"})
	return w, store
}

// importIntoPulumi exports runner's stack dev of project (folder dir) and
// imports it into the Pulumi CLI's file:// backend in folder state, with
// runner's stack config copied beside its Pulumi.yaml (the config and the
// encryptionsalt Pulumi needs).
func importIntoPulumi(t *testing.T, w *ws, pl *pulumiRun, project, dir, state string) {
	t.Helper()
	export := filepath.Join(t.TempDir(), project+".json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", project, "--file", export)
	cfg, err := os.ReadFile(filepath.Join(w.dir, "config", "pulumi", "Pulumi.dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.dev.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	pl.login(dir, state)
	pl.ok(dir, "stack", "init", "dev")
	pl.ok(dir, "stack", "import", "--file", export)
}

// importIntoRunner exports the Pulumi CLI's stack dev of project (folder
// dir) and imports it into runner.
func importIntoRunner(t *testing.T, w *ws, pl *pulumiRun, project, dir string) {
	t.Helper()
	export := filepath.Join(t.TempDir(), project+".json")
	pl.ok(dir, "stack", "export", "--file", export)
	w.ok("-p", "e", "-s", "dev", "stack", "import", "--project", project, "--file", export)
}

// sameExports fails unless runner's and the Pulumi CLI's stack dev of
// project (folder dir) hold the same resources (sameResources).
func sameExports(t *testing.T, w *ws, pl *pulumiRun, project, dir string) {
	t.Helper()
	tmp := t.TempDir()
	shown := filepath.Join(tmp, "runner-shown.json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", project, "--show-secrets", "--file", shown)
	pshown := filepath.Join(tmp, "pulumi-shown.json")
	pl.ok(dir, "stack", "export", "--show-secrets", "--file", pshown)
	sameResources(t, "runner's export", readDeployment(t, shown), "Pulumi's export", readDeployment(t, pshown))
}

// deployment is the part of a stack export compared across the two tools.
type deployment struct {
	Deployment struct {
		Resources []struct {
			URN      string         `json:"urn"`
			Type     string         `json:"type"`
			ID       string         `json:"id"`
			Provider string         `json:"provider"`
			Parent   string         `json:"parent"`
			Inputs   map[string]any `json:"inputs"`
			Outputs  map[string]any `json:"outputs"`
		} `json:"resources"`
		SecretsProviders struct {
			Type  string         `json:"type"`
			State map[string]any `json:"state"`
		} `json:"secrets_providers"`
	} `json:"deployment"`
}

func readDeployment(t *testing.T, path string) deployment {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d deployment
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return d
}

// byURN returns the resources of a deployment by URN.
func (d deployment) byURN() map[string]int {
	m := map[string]int{}
	for i, r := range d.Deployment.Resources {
		m[r.URN] = i
	}
	return m
}

// sameResources fails unless a and b (stack exports made with
// --show-secrets) hold the same resources: URNs, types, IDs, provider
// references, parents and inputs.
func sameResources(t *testing.T, aName string, a deployment, bName string, b deployment) {
	t.Helper()
	am, bm := a.byURN(), b.byURN()
	for urn := range am {
		if _, ok := bm[urn]; !ok {
			t.Errorf("%s has %s, %s does not", aName, urn, bName)
		}
	}
	for urn, j := range bm {
		i, ok := am[urn]
		if !ok {
			t.Errorf("%s has %s, %s does not", bName, urn, aName)
			continue
		}
		ra, rb := a.Deployment.Resources[i], b.Deployment.Resources[j]
		if ra.Type != rb.Type || ra.ID != rb.ID || ra.Provider != rb.Provider || ra.Parent != rb.Parent {
			t.Errorf("%s differs:\n%s: type %s id %s provider %s parent %s\n%s: type %s id %s provider %s parent %s",
				urn, aName, ra.Type, ra.ID, ra.Provider, ra.Parent, bName, rb.Type, rb.ID, rb.Provider, rb.Parent)
		}
		ja, _ := json.Marshal(ra.Inputs)
		jb, _ := json.Marshal(rb.Inputs)
		if !bytes.Equal(ja, jb) {
			t.Errorf("the inputs of %s differ:\n%s: %s\n%s: %s", urn, aName, ja, bName, jb)
		}
	}
}

// runnerSummary returns the step counts of a `--json` run's summary.
func runnerSummary(t *testing.T, r result) map[string]float64 {
	t.Helper()
	for _, line := range strings.Split(r.Stdout, "\n") {
		var ev struct {
			Type     string `json:"type"`
			Projects []struct {
				Counts map[string]float64 `json:"counts"`
			} `json:"projects"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "summary" {
			continue
		}
		counts := map[string]float64{}
		for _, p := range ev.Projects {
			for k, v := range p.Counts {
				counts[k] += v
			}
		}
		return counts
	}
	t.Fatalf("no summary in the output:\n%s", r.Stdout)
	return nil
}

// TestPulumiCLIPreviewsRunnerStack deploys the YAML chain project with
// runner, exports its stack, imports it into the Pulumi CLI (a file://
// backend of its own) and checks that Pulumi previews no change there:
// runner writes the URNs, provider references and inputs Pulumi would, and
// Pulumi opens its secrets with the stack config runner kept (the same
// encryptionsalt as the state's secrets provider).
func TestPulumiCLIPreviewsRunnerStack(t *testing.T) {
	w, store := chainWorkspace(t)
	// Resource a asks for the plugin's version: its default provider is
	// named after it (default_1_2_3), beside b's and c's "default".
	file := filepath.Join(w.dir, "chain", "Pulumi.yaml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	versioned := strings.Replace(string(b), "      value: ${prefix}-a\n", "      value: ${prefix}-a\n    options:\n      version: 1.2.3\n", 1)
	if versioned == string(b) {
		t.Fatal("the chain program has no resource a to give a version")
	}
	w.write(map[string]string{"chain/Pulumi.yaml": versioned})
	pulumiPreviewsRunnerStack(t, w, store)
	exported := filepath.Join(t.TempDir(), "runner.json")
	w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "chain", "--file", exported)
	if _, ok := readDeployment(t, exported).byURN()["urn:pulumi:dev::chain::pulumi:providers:testprov::default_1_2_3"]; !ok {
		t.Errorf("runner's export has no default provider named after version 1.2.3")
	}
}

// pulumiPreviewsRunnerStack has runner deploy the chain project of w, the
// Pulumi CLI import its stack, preview and update it with no change (and
// open its secret), and the two exports then hold the same resources.
func pulumiPreviewsRunnerStack(t *testing.T, w *ws, store providertest.Store) {
	t.Helper()
	pl := newPulumi(t, w)
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "chain:token", secretToken)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")
	chain := filepath.Join(w.dir, "chain")
	importIntoPulumi(t, w, pl, "chain", chain, filepath.Join(t.TempDir(), "pulumi-state"))
	if r := pl.ok(chain, "preview", "--expect-no-changes", "--diff"); !strings.Contains(r.Stdout, "4 unchanged") {
		t.Errorf("pulumi preview does not say 4 unchanged:\n%s", r.Stdout)
	}
	if r := pl.ok(chain, "stack", "output", "token", "--show-secrets"); strings.TrimSpace(r.Stdout) != secretToken {
		t.Errorf("pulumi stack output token --show-secrets = %q, want the secret runner stored", strings.TrimSpace(r.Stdout))
	}
	sameExports(t, w, pl, "chain", chain)
	// The chain's resources are as runner made them: Pulumi's no-op
	// update touches nothing. (Its state may then differ: with a resource
	// asking for version 1.2.3, Pulumi moves the others to that version's
	// default provider, where runner keeps them on "default".)
	pl.ok(chain, "up", "--yes", "--expect-no-changes")
	if got, want := values(t, store), []string{"p-a", "p-a-b", "p-a-b-c"}; !equal(got, want) {
		t.Errorf("after Pulumi's up the store holds %v, want %v", got, want)
	}
}

// TestRunnerPreviewsPulumiCLIStack is the reverse: the Pulumi CLI deploys
// the same project, its stack export is imported by runner (which reads
// the project's own Pulumi.dev.yaml, where Pulumi keeps the config), and
// runner previews no change, opens the secrets and updates nothing.
func TestRunnerPreviewsPulumiCLIStack(t *testing.T) {
	runnerPreviewsPulumiCLIStack(t, "yaml")
}

// runnerPreviewsPulumiCLIStack has the Pulumi CLI deploy the chain
// program of runtime rt, then runner import its stack, preview and update
// with no change.
func runnerPreviewsPulumiCLIStack(t *testing.T, rt string) {
	w, store := chainWorkspaceOf(t, rt)
	pl := newPulumi(t, w)
	chain := filepath.Join(w.dir, "chain")
	pl.login(chain, filepath.Join(t.TempDir(), "pulumi-state"))
	pl.ok(chain, "stack", "init", "dev")
	pl.ok(chain, "config", "set", "testprov:store", string(store))
	pl.ok(chain, "config", "set", "--secret", "token", secretToken)
	pl.ok(chain, "up", "--yes")

	w.ok("-p", "e", "-s", "dev", "stack", "init", "dev")
	importIntoRunner(t, w, pl, "chain", chain)
	r := w.ok("-p", "e", "-s", "dev", "--json", "preview")
	if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 4 {
		t.Errorf("runner's preview of the stack Pulumi made: counts %v, want only 4 same\n%s", c, r.Stdout)
	}
	outs := w.outputs("chain")
	if outs["last"] != "p-a-b-c" {
		t.Errorf("runner's stack output after the import: %v", outs)
	}
	sameExports(t, w, pl, "chain", chain)
	r = w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes")
	if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 4 {
		t.Errorf("runner's up of the stack Pulumi made: counts %v, want only 4 same\n%s", c, r.Stdout)
	}
	if got, want := values(t, store), []string{"p-a", "p-a-b", "p-a-b-c"}; !equal(got, want) {
		t.Errorf("after runner's up the store holds %v, want %v", got, want)
	}
}
