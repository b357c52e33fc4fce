// Package hostileclouds holds regression tests for defects a hostile user
// found in `runner up/destroy -p aws` and `-p kubeconfig`: the built runner
// binary against the fake aws and kubernetes plugins (e2e/fakecloud).
package hostileclouds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// binary is the runner binary; plugins the directory of the fake plugins.
var binary, plugins string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runner-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "runner")
	build := exec.Command("go", "build", "-o", binary, filepath.Join(repoRoot(), "cmd", "runner"))
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building runner:", err)
		os.Exit(1)
	}
	if plugins, err = fakecloud.Build(); err != nil {
		fmt.Fprintln(os.Stderr, "building the fake plugins:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// env is one user's machine: a workspace, a home, a fake cloud.
type env struct {
	t                     *testing.T
	ws, home, cloud, pdir string
	extra                 []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), cloud: filepath.Join(root, "cloud"), pdir: filepath.Join(root, "pulumi")}
	for _, d := range []string{e.ws, e.home, e.cloud, e.pdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// environ is the environment of every run: the fake plugins first on PATH,
// fake AWS keys, nothing inherited of AWS, Pulumi or Kubernetes.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH":
			out = append(out, "PATH="+plugins+string(os.PathListSeparator)+v)
		case strings.HasPrefix(k, "AWS_"), strings.HasPrefix(k, "PULUMI_"), strings.HasPrefix(k, "RUNNER_"),
			k == "KUBECONFIG", k == "HOME", k == "NO_COLOR", k == "CI", strings.HasPrefix(k, "FAKECLOUD_"):
		default:
			out = append(out, kv)
		}
	}
	out = append(out, "HOME="+e.home, "PULUMI_HOME="+e.pdir, "FAKECLOUD_DIR="+e.cloud, "NO_COLOR=1",
		"PULUMI_CONFIG_PASSPHRASE=hostile", "AWS_ACCESS_KEY_ID=AKIAHOSTILE000000000", "AWS_SECRET_ACCESS_KEY=hostile-secret-key")
	return append(out, e.extra...)
}

type result struct {
	Stdout, Stderr string
	Code           int
}

// run runs runner in the workspace with args, stdin as input.
func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"--root", e.ws, "-s", "dev", "--non-interactive"}, args...)...)
	cmd.Dir = e.ws
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	case err != nil:
		e.t.Fatalf("running runner %v: %v", args, err)
	}
	return r
}

// ok runs and fails the test unless runner exits 0.
func (e *env) ok(args ...string) result {
	e.t.Helper()
	r := e.run("", args...)
	if r.Code != 0 {
		e.t.Fatalf("runner %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// secrets are the passwords the Kubernetes projects need, as a user sets them.
var secrets = map[string]string{
	"sirius:accounts_pwd": "hostile-accounts-pw", "sirius:ledger_pwd": "hostile-ledger-pw",
	"sirius:demo_login_pwd": "hostile-demo-pw", "prometheus:adminpass": "hostile-grafana-pw",
}

// maraStack writes MARA's example stack config as stack dev, fixed as its
// comments tell a user (region of its zones, a supported Kubernetes
// version) with every secret set encrypted, except those in plain.
func (e *env) maraStack(plain ...string) {
	e.t.Helper()
	example, err := os.ReadFile("/work/shared/mara/Pulumi.stackname.yaml.example")
	if err != nil {
		e.t.Skipf("MARA's example stack config is not here: %v", err)
	}
	cfg := filepath.Join(e.ws, "config", "pulumi")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "Pulumi.dev.yaml"), example, 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.ok("config", "set", "eks:k8s_version", "1.34")
	e.ok("config", "set", "aws:region", "us-west-1")
	for k, v := range secrets {
		if contains(plain, k) {
			e.ok("config", "set", k, v)
			continue
		}
		if r := e.run(v, "config", "set", "--secret", k); r.Code != 0 {
			e.t.Fatalf("config set --secret %s: exit %d %s", k, r.Code, r.Stderr)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cloud returns the fake cloud's resources.
func (e *env) list() []fakecloud.Resource {
	e.t.Helper()
	rs, err := fakecloud.List(e.cloud)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}
