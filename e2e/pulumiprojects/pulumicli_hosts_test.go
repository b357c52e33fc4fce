package pulumiprojects

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The Pulumi CLI runs TypeScript and Go programs through
// pulumi-language-nodejs and pulumi-language-go, which cannot be had here
// (the Go module proxy does not serve their modules, and the CLI's build
// does not include them). These tests put langhost (a test-only host that
// runs the program with runner's own launchers, see langhost/main.go) on
// PATH under both names: the Pulumi engine then runs the same program
// through the same SDK, and decides its steps on runner's state with its
// own step generator. What they do not show is that Pulumi's own hosts
// launch a program as runner does.

// langHosts builds langhost once per test process, as
// pulumi-language-nodejs and pulumi-language-go in one folder.
var langHosts = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "runner-langhost-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pulumi-language-nodejs")
	if out, err := exec.Command("go", "build", "-o", bin, "./langhost").CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return dir, os.Link(bin, filepath.Join(dir, "pulumi-language-go"))
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "building langhost: " + e.err.Error() + "\n" + e.out }

// withLangHosts puts langhost on the PATH of the workspace's runs (and so
// of the Pulumi CLI's).
func (w *ws) withLangHosts(t *testing.T) {
	t.Helper()
	dir, err := langHosts()
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	for _, kv := range w.extra {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	w.extra = append(w.extra, "PATH="+dir+string(os.PathListSeparator)+path)
}

// hostedRuntimes are the runtimes the Pulumi CLI reaches through langhost.
var hostedRuntimes = []string{"ts", "go"}

// TestPulumiCLIPreviewsRunnersTSAndGoStacks: the TypeScript and the Go
// chain programs, deployed by runner, exported and imported into the
// Pulumi CLI, preview and update with no changes there, and Pulumi's state
// then holds the same resources (URNs, IDs, provider references, parents,
// inputs) as runner's.
func TestPulumiCLIPreviewsRunnersTSAndGoStacks(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, false)
			w.withLangHosts(t)
			w.project(rt, "chain", "chain", "chain")
			w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      chain: {path: chain}\n"})
			pl := newPulumi(t, w)
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "chain:token", secretToken)
			w.ok("-p", "e", "-s", "dev", "up", "--yes")
			tmp := t.TempDir()
			export := filepath.Join(tmp, "runner.json")
			w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "chain", "--file", export)
			chain := filepath.Join(w.dir, "chain")
			cfg, err := os.ReadFile(filepath.Join(w.dir, "config", "pulumi", "Pulumi.dev.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(chain, "Pulumi.dev.yaml"), cfg, 0o600); err != nil {
				t.Fatal(err)
			}
			pl.login(chain, filepath.Join(tmp, "pulumi-state"))
			pl.ok(chain, "stack", "init", "dev")
			pl.ok(chain, "stack", "import", "--file", export)
			if r := pl.ok(chain, "preview", "--expect-no-changes", "--diff"); !strings.Contains(r.Stdout, "4 unchanged") {
				t.Errorf("pulumi preview does not say 4 unchanged:\n%s", r.Stdout)
			}
			pl.ok(chain, "up", "--yes", "--expect-no-changes")
			shown := filepath.Join(tmp, "runner-shown.json")
			w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "chain", "--show-secrets", "--file", shown)
			pshown := filepath.Join(tmp, "pulumi-shown.json")
			pl.ok(chain, "stack", "export", "--show-secrets", "--file", pshown)
			sameResources(t, "runner's export", readDeployment(t, shown), "Pulumi's export after its up", readDeployment(t, pshown))
			if r := pl.ok(chain, "stack", "output", "token", "--show-secrets"); strings.TrimSpace(r.Stdout) != secretToken {
				t.Errorf("pulumi stack output token --show-secrets = %q, want the secret runner stored", strings.TrimSpace(r.Stdout))
			}
			if got, want := values(t, store), []string{"p-a", "p-a-b", "p-a-b-c"}; !equal(got, want) {
				t.Errorf("after Pulumi's up the store holds %v, want %v", got, want)
			}
		})
	}
}

// TestRunnerPreviewsPulumiCLIsTSAndGoStacks is the reverse: the Pulumi
// CLI deploys the TypeScript and the Go chain programs, runner imports
// each stack export and previews and updates with no change.
func TestRunnerPreviewsPulumiCLIsTSAndGoStacks(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, false)
			w.withLangHosts(t)
			w.project(rt, "chain", "chain", "chain")
			w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      chain: {path: chain}\n"})
			pl := newPulumi(t, w)
			tmp := t.TempDir()
			chain := filepath.Join(w.dir, "chain")
			pl.login(chain, filepath.Join(tmp, "pulumi-state"))
			pl.ok(chain, "stack", "init", "dev")
			pl.ok(chain, "config", "set", "testprov:store", string(store))
			pl.ok(chain, "config", "set", "--secret", "token", secretToken)
			pl.ok(chain, "up", "--yes")
			export := filepath.Join(tmp, "pulumi.json")
			pl.ok(chain, "stack", "export", "--file", export)

			w.ok("-p", "e", "-s", "dev", "stack", "init", "dev")
			w.ok("-p", "e", "-s", "dev", "stack", "import", "--project", "chain", "--file", export)
			r := w.ok("-p", "e", "-s", "dev", "--json", "preview")
			if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 4 {
				t.Errorf("runner's preview of the stack Pulumi made: counts %v, want only 4 same\n%s", c, r.Stdout)
			}
			shown := filepath.Join(tmp, "runner-shown.json")
			w.ok("-p", "e", "-s", "dev", "stack", "export", "--project", "chain", "--show-secrets", "--file", shown)
			pshown := filepath.Join(tmp, "pulumi-shown.json")
			pl.ok(chain, "stack", "export", "--show-secrets", "--file", pshown)
			sameResources(t, "Pulumi's export", readDeployment(t, pshown), "runner's export after the import", readDeployment(t, shown))
			r = w.ok("-p", "e", "-s", "dev", "--json", "up", "--yes")
			if c := runnerSummary(t, r); len(c) != 1 || c["same"] != 4 {
				t.Errorf("runner's up of the stack Pulumi made: counts %v, want only 4 same\n%s", c, r.Stdout)
			}
			if got, want := values(t, store), []string{"p-a", "p-a-b", "p-a-b-c"}; !equal(got, want) {
				t.Errorf("after runner's up the store holds %v, want %v", got, want)
			}
		})
	}
}
