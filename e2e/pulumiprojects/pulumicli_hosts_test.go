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
// pulumi-language-nodejs and pulumi-language-go in one folder beside the
// runner binary (which TestMain removes).
var langHosts = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(filepath.Dir(binary), "langhost")
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
			w, store := chainWorkspaceOf(t, rt)
			pulumiPreviewsRunnerStack(t, w, store)
		})
	}
}

// TestRunnerPreviewsPulumiCLIsTSAndGoStacks is the reverse: the Pulumi
// CLI deploys the TypeScript and the Go chain programs, runner imports
// each stack export and previews and updates with no change.
func TestRunnerPreviewsPulumiCLIsTSAndGoStacks(t *testing.T) {
	for _, rt := range hostedRuntimes {
		t.Run(rt, func(t *testing.T) { runnerPreviewsPulumiCLIStack(t, rt) })
	}
}
