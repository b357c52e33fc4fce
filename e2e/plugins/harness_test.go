// Package plugins runs the runner binary, built with the testprov provider
// (build tag runner_testprov), against the real pulumi-resource-testprov
// plugin: Pulumi's own provider server code decodes what runner sends.
package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

var (
	binary    string // runner, built with -tags runner_testprov
	pluginDir string // the folder of pulumi-resource-testprov
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runner-e2e-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "runner")
	build := exec.Command("go", "build", "-tags", "runner_testprov", "-o", binary, "../../cmd/runner")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building runner:", err)
		os.Exit(1)
	}
	plugin, err := providertest.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the testprov plugin:", err)
		os.Exit(1)
	}
	pluginDir = filepath.Dir(plugin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is a test workspace with its fake cloud.
type env struct {
	t     *testing.T
	dir   string             // the workspace
	store providertest.Store // the plugin's resources
	extra []string           // more environment for every run
}

// newEnv makes a workspace on stack dev whose testprov store is a temp dir.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), store: providertest.Store(t.TempDir())}
	e.extra = []string{"PULUMI_HOME=" + filepath.Join(t.TempDir(), "home")}
	e.ok("stack", "init", "dev")
	e.ok("config", "set", "testprov:store", string(e.store))
	return e
}

// baseEnv is the environment of every run: no terminal, a passphrase, the
// plugin first on PATH.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PULUMI_STACK", "RUNNER_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE",
			"NO_COLOR", "PATH", "PULUMI_HOME", "PULUMI_IGNORE_AMBIENT_PLUGINS":
			continue
		}
		if strings.HasPrefix(k, "TESTPROV_") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "PULUMI_CONFIG_PASSPHRASE=e2e-passphrase", "NO_COLOR=1",
		"PATH="+pluginDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(out, e.extra...)
}

// result is one run of the binary.
type result struct {
	Stdout, Stderr string
	Code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
}

// run runs runner in the workspace with --provider testprov.
func (e *env) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"--root", e.dir, "--provider", "testprov"}, args...)...)
	cmd.Dir = e.dir
	cmd.Env = e.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		e.t.Fatalf("running runner %v: %v", args, err)
	}
	return res
}

// ok runs and fails the test unless runner exits 0.
func (e *env) ok(args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.Code != 0 {
		e.t.Fatalf("runner %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// fails runs and fails the test unless runner exits with code.
func (e *env) fails(code int, args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.Code != code {
		e.t.Fatalf("runner %s: want exit %d, got %s", strings.Join(args, " "), code, r)
	}
	return r
}

// spec writes the JSON program spec of project.
func (e *env) spec(project string, spec any) {
	e.t.Helper()
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join(e.dir, "testprov", project+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// resources returns the fake cloud's resources by id.
func (e *env) resources() map[string]map[string]any {
	e.t.Helper()
	rs, err := e.store.Resources()
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

// byName returns the stored resources by their `name` input prefix (the
// plugin auto-names "<resource>-<hex>" unless the input name is set).
func (e *env) byURNName() map[string]map[string]any {
	e.t.Helper()
	out := map[string]map[string]any{}
	for _, r := range e.resources() {
		urn, _ := r["urn"].(string)
		out[urn[strings.LastIndex(urn, "::")+2:]] = r
	}
	return out
}

// thing is a spec resource of type Thing.
func thing(name string, inputs map[string]any) map[string]any {
	return map[string]any{"name": name, "type": providertest.TypeThing, "inputs": inputs}
}

// stateFiles returns the text of every file under the workspace's .runner.
func (e *env) stateFiles() string {
	e.t.Helper()
	var b strings.Builder
	_ = filepath.Walk(filepath.Join(e.dir, ".runner"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}
