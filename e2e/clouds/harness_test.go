// Package clouds runs the built runner binary end to end against the fake
// pulumi-resource-aws and pulumi-resource-kubernetes plugins (package
// e2e/fakecloud): `-p aws` with MARA's example config and `-p kubeconfig`
// with a kubeconfig file of the test's own, judged by runner's exit codes,
// messages, --json events, state files and the fake cloud's resources.
// Tests whose comment ends "(hostile tester's regression)" guard defects
// a hostile tester found, each in the file of its topic.
package clouds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

var (
	binary  string // runner, built once
	fakeBin string // the folder of the fake plugins
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runner-e2e-clouds-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "runner")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/runner")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building runner:", err)
		os.Exit(1)
	}
	if fakeBin, err = fakecloud.Build(); err != nil {
		fmt.Fprintln(os.Stderr, "building the fake plugins:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's world: a workspace, a HOME, a PULUMI_HOME, a fake
// cloud and a KUBECONFIG path, all temporary, and every output runner
// printed (for the secrets leak checks).
type env struct {
	t          testing.TB
	dir        string // the workspace
	home       string // HOME
	pulumiHome string // PULUMI_HOME
	cloud      string // FAKECLOUD_DIR
	kubeconfig string // KUBECONFIG (the eks hook writes it)
	path       string // PATH: the fakes first
	aws        []string
	extra      []string
	doAPI      string   // DIGITALOCEAN_API_URL: the fake DigitalOcean API over the fake cloud
	binary     string   // the runner to run ("": the one built)
	runs       []result // every run, for the secrets leak checks
}

// newEnv makes the world of a test, with the fake AWS credentials of
// region.
func newEnv(t testing.TB, region string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, dir: filepath.Join(root, "ws"), home: filepath.Join(root, "home"),
		pulumiHome: filepath.Join(root, "pulumi-home"), cloud: filepath.Join(root, "cloud"),
		kubeconfig: filepath.Join(root, "kube", "config"),
		path:       fakeBin + string(os.PathListSeparator) + os.Getenv("PATH"),
		aws:        fakecloud.AWSEnv(region)}
	api := httptest.NewServer(fakecloud.DOAPI(e.cloud, doToken))
	t.Cleanup(api.Close)
	e.doAPI = api.URL
	for _, d := range []string{e.dir, e.home, e.pulumiHome, e.cloud} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// environ is the environment of every run: nothing inherited that could
// reach a real cloud or the user's files, no terminal, a passphrase.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "AWS_"), strings.HasPrefix(k, "PULUMI_"), strings.HasPrefix(k, "RUNNER_"),
			strings.HasPrefix(k, "FAKECLOUD_"), strings.HasPrefix(k, "KUBE"), strings.HasPrefix(k, "DIGITALOCEAN_"):
			continue
		}
		switch k {
		case "HOME", "PATH", "NO_COLOR", "XDG_CONFIG_HOME":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+e.home, "PULUMI_HOME="+e.pulumiHome, fakecloud.EnvDir+"="+e.cloud,
		"KUBECONFIG="+e.kubeconfig, "PATH="+e.path, "PULUMI_CONFIG_PASSPHRASE=e2e-clouds-passphrase", "NO_COLOR=1", "CI=1",
		// A CI machine on EC2 must not lend its instance role to the tests.
		"AWS_EC2_METADATA_DISABLED=true",
		// runner asks DigitalOcean's API itself for the account's registry.
		"DIGITALOCEAN_API_URL="+e.doAPI)
	out = append(out, e.aws...)
	return append(out, e.extra...)
}

// result is one run of the binary.
type result struct {
	args           []string
	Stdout, Stderr string
	Code           int
}

func (r result) String() string {
	return fmt.Sprintf("runner %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.Code, r.Stdout, r.Stderr)
}

// run runs runner in the workspace (--root, --stack dev,
// --non-interactive added) with stdin.
func (e *env) runIn(stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append([]string{"--root", e.dir, "-s", "dev", "--non-interactive"}, args...)
	bin := binary
	if e.binary != "" {
		bin = e.binary
	}
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = e.dir
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{args: args, Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		e.t.Fatalf("running runner %v: %v", args, err)
	}
	e.runs = append(e.runs, res)
	return res
}

func (e *env) run(args ...string) result { e.t.Helper(); return e.runIn("", args...) }

// ok runs and fails the test unless runner exits 0.
func (e *env) ok(args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.Code != 0 {
		e.t.Fatal(r)
	}
	return r
}

// fails runs and fails the test unless runner exits with code.
func (e *env) fails(code int, args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.Code != code {
		e.t.Fatalf("want exit %d; %s", code, r)
	}
	return r
}

// setSecret sets a secret config value through stdin, as a user types it.
func (e *env) setSecret(key, value string) {
	e.t.Helper()
	if r := e.runIn(value, "config", "set", "--secret", key); r.Code != 0 {
		e.t.Fatal(r)
	}
}

// resources returns the fake cloud's resources.
func (e *env) resources() []fakecloud.Resource {
	e.t.Helper()
	rs, err := fakecloud.List(e.cloud)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

// ofType returns the fake cloud's resources of a type.
func (e *env) ofType(typ string) []fakecloud.Resource {
	var out []fakecloud.Resource
	for _, r := range e.resources() {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// cloudEmpty fails the test unless the fake cloud holds nothing.
func (e *env) cloudEmpty(when string) {
	e.t.Helper()
	if rs := e.resources(); len(rs) != 0 {
		var names []string
		for _, r := range rs {
			names = append(names, r.Type+" "+r.ID)
		}
		e.t.Errorf("%s, the fake cloud still holds %d resources: %s", when, len(rs), strings.Join(names, ", "))
	}
}

// tree returns every file under root with its contents (nil when root
// does not exist).
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[p] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// stateFiles returns the files of the workspace's state (.runner).
func (e *env) stateFiles() map[string]string { return tree(e.t, filepath.Join(e.dir, ".runner")) }

// event is the part of a --json event the tests read.
type event struct {
	Type      string         `json:"type"`
	Operation string         `json:"operation"`
	Project   string         `json:"project"`
	Op        string         `json:"op"`
	Keys      []string       `json:"keys"`
	URN       string         `json:"urn"`
	Result    string         `json:"result"`
	Message   string         `json:"message"`
	Error     string         `json:"error"`
	Counts    map[string]int `json:"counts"`
	Outputs   map[string]any `json:"outputs"`
	Projects  []struct {
		Project string         `json:"project"`
		Result  string         `json:"result"`
		Counts  map[string]int `json:"counts"`
	} `json:"projects"`
}

// events decodes the --json lines of a run's stdout.
func events(t testing.TB, r result) []event {
	t.Helper()
	var out []event
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("a --json line is not JSON (%v): %s", err, line)
		}
		out = append(out, ev)
	}
	return out
}

// graph is `runner show --format json`: the projects and their upstreams.
type graph struct {
	Projects []struct {
		Name      string   `json:"name"`
		Step      int      `json:"step"`
		DependsOn []string `json:"depends_on"`
	} `json:"projects"`
}

// show returns the provider's graph as `runner show --format json` gives it.
func (e *env) show(provider string) graph {
	e.t.Helper()
	r := e.ok("-p", provider, "show", "--format", "json")
	var g graph
	if err := json.Unmarshal([]byte(r.Stdout), &g); err != nil || len(g.Projects) == 0 {
		e.t.Fatalf("show --format json: %v\n%s", err, r.Stdout)
	}
	return g
}

// outputs returns a project's outputs as `runner stack output --json`
// prints them.
func (e *env) stackOutputs(project string) map[string]any {
	e.t.Helper()
	r := e.ok("--json", "stack", "output", "--project", project)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &m); err != nil {
		e.t.Fatalf("stack output --json --project %s: %v\n%s", project, err, r.Stdout)
	}
	return m
}
