// Package e2e runs the built runner binary in temporary workspaces.
package e2e

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

	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
	"github.com/runnerhq/runner/providers/builtin"
)

// binary is the runner binary built once for the package's tests.
var binary string

// pulumiHome is the PULUMI_HOME of every run: a plugin cache holding a
// stand-in for each plugin a built-in provider declares, so that the
// plugin check passes (a test wanting another cache sets PULUMI_HOME).
var pulumiHome string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runner-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "runner")
	build := exec.Command("go", "build", "-o", binary, "../cmd/runner")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building runner:", err)
		os.Exit(1)
	}
	pulumiHome = filepath.Join(dir, "pulumi-home")
	if err := fakePlugins(pulumiHome); err != nil {
		fmt.Fprintln(os.Stderr, "making the plugin cache:", err)
		os.Exit(1)
	}
	code := m.Run()
	pgtest.StopShared()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Result is one run of the binary.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// workspace makes an empty workspace with a fast-to-type passphrase.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// A service the test left running dies with it: one its last destroy
	// could not stop (machine-b's run replaced it from another pid
	// namespace, or the test changed the passphrase or the state).
	t.Cleanup(func() { crashServices(t, dir) })
	return dir
}

// baseEnv is the environment of every run: no terminal, a passphrase, no
// inherited stack or backend.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PULUMI_STACK", "RUNNER_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE", "NO_COLOR":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PULUMI_CONFIG_PASSPHRASE=e2e-passphrase", "NO_COLOR=1", "PULUMI_HOME="+pulumiHome)
}

// fakePlugins lays out, in the plugin cache of home, a stand-in binary
// (which fails if started) for every plugin the built-in providers declare.
func fakePlugins(home string) error {
	for _, p := range builtin.Registry().All() {
		for _, spec := range p.Plugins {
			dir := filepath.Join(home, "plugins", "resource-"+spec.Name+"-v"+spec.Version)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			script := "#!/bin/sh\necho 'a stand-in for the e2e tests, not a plugin' >&2\nexit 1\n"
			if err := os.WriteFile(filepath.Join(dir, "pulumi-resource-"+spec.Name), []byte(script), 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// run runs the binary in dir with args (after --root dir), stdin as input,
// extra environment.
func run(t *testing.T, dir, stdin string, env []string, args ...string) Result {
	t.Helper()
	return runAs(t, dir, stdin, env, append([]string{"--root", dir}, args...)...)
}

// runAs runs the binary in dir with exactly args (no --root added), as a
// user types them in their workspace.
func runAs(t *testing.T, dir, stdin string, env []string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running runner %v: %v", args, err)
	}
	return res
}

// ok runs and fails the test unless the exit code is 0.
func ok(t *testing.T, dir string, args ...string) Result {
	t.Helper()
	r := run(t, dir, "", nil, args...)
	if r.Code != 0 {
		t.Fatalf("runner %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// repoRoot returns the repository's root folder.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}
