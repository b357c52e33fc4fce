// Package pulumiprojects runs the runner binary on workspaces whose
// environments are the user's own Pulumi projects (runner.yaml): YAML,
// TypeScript and Go programs through their real language hosts and SDKs.
package pulumiprojects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binary is the runner binary built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runner-e2e-projects-")
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
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	Stdout, Stderr string
	Code           int
}

// ws is a test workspace.
type ws struct {
	t     testing.TB
	dir   string
	extra []string // more environment for every run
}

func newWS(t testing.TB) *ws {
	t.Helper()
	return &ws{t: t, dir: t.TempDir(), extra: []string{"PULUMI_HOME=" + filepath.Join(t.TempDir(), "home")}}
}

// write writes files (path relative to the workspace -> content).
func (w *ws) write(files map[string]string) {
	w.t.Helper()
	for name, body := range files {
		p := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *ws) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PULUMI_STACK", "RUNNER_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE", "NO_COLOR", "PULUMI_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "PULUMI_CONFIG_PASSPHRASE=e2e-passphrase", "NO_COLOR=1"), w.extra...)
}

// run runs runner in the workspace with args (after --root).
func (w *ws) run(args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"--root", w.dir}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		w.t.Fatalf("running runner %v: %v", args, err)
	}
	return res
}

// ok runs and fails the test unless runner exits 0.
func (w *ws) ok(args ...string) result {
	w.t.Helper()
	r := w.run(args...)
	if r.Code != 0 {
		w.t.Fatalf("runner %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// fails runs and fails the test unless runner exits with code.
func (w *ws) fails(code int, args ...string) result {
	w.t.Helper()
	r := w.run(args...)
	if r.Code != code {
		w.t.Fatalf("runner %s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, code, r.Stdout, r.Stderr)
	}
	return r
}
