package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/runner/term"
)

// envWorkspace is a workspace whose stack dev has a config file and whose
// environment file sets a variable but names no stack.
func envWorkspace(t *testing.T) (string, Options) {
	t.Helper()
	t.Setenv("PULUMI_STACK", "")
	dir := t.TempDir()
	p := StackConfigPath(dir, "dev")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, body := range map[string]string{p: "config:\n  t:name: x\n", EnvFilePath(Options{}, dir): "RUNNER_TEST_FROM_FILE=file-value\n"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	io := &term.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, NoColor: true}
	return dir, Options{Root: dir, Stack: "dev", Provider: "t", IO: io, Providers: testProviders(t), KeyIterations: testIterations}
}

// TestOpeningChangesNoEnvironment checks that opening a stack neither sets
// the environment file's values in runner's own process nor writes the
// file, whether the command may create the stack or not; the values reach
// what runner starts through Environ.
func TestOpeningChangesNoEnvironment(t *testing.T) {
	for name, open := range map[string]func(Options) (*Session, error){"Open": Open, "OpenExisting": OpenExisting} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("RUNNER_TEST_FROM_FILE", "process-value")
			dir, opts := envWorkspace(t)
			s, err := open(opts)
			if err != nil {
				t.Fatal(err)
			}
			if v := os.Getenv("RUNNER_TEST_FROM_FILE"); v != "process-value" {
				t.Errorf("opening set RUNNER_TEST_FROM_FILE=%q in runner's own environment", v)
			}
			if v := s.Environ()["RUNNER_TEST_FROM_FILE"]; v != "file-value" {
				t.Errorf("Environ()[RUNNER_TEST_FROM_FILE] = %q, want the file's value", v)
			}
			if v := s.getenv("RUNNER_TEST_FROM_FILE"); v != "file-value" {
				t.Errorf("getenv(RUNNER_TEST_FROM_FILE) = %q, want the file's value", v)
			}
			if s.Environ()["PATH"] != os.Getenv("PATH") {
				t.Error("Environ() lacks runner's own PATH")
			}
			env, _ := os.ReadFile(EnvFilePath(opts, dir))
			if string(env) != "RUNNER_TEST_FROM_FILE=file-value\n" {
				t.Errorf("opening wrote the environment file: %q", env)
			}
		})
	}
}

// TestConfigEditRecordsTheStack checks that a config edit records the
// stack in the environment file that named none.
func TestConfigEditRecordsTheStack(t *testing.T) {
	dir, opts := envWorkspace(t)
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveConfig("t:name", false); err != nil {
		t.Fatal(err)
	}
	env, _ := os.ReadFile(EnvFilePath(opts, dir))
	if want := "RUNNER_TEST_FROM_FILE=file-value\nPULUMI_STACK=dev\n"; string(env) != want {
		t.Errorf("after config rm the environment file holds %q, want %q", env, want)
	}
}

// TestEnvironKeepsBackendSecrets checks that the backend's URL and the
// PostgreSQL password never reach what runner starts.
func TestEnvironKeepsBackendSecrets(t *testing.T) {
	t.Setenv("PGPASSWORD", "pg-secret")
	t.Setenv("PGPASSFILE", "/somewhere/.pgpass")
	t.Setenv("RUNNER_BACKEND_URL", "postgres://u:pg-secret@db/state")
	_, opts := envWorkspace(t)
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"PGPASSWORD", "PGPASSFILE", "RUNNER_BACKEND_URL"} {
		if v, ok := s.Environ()[k]; ok {
			t.Errorf("Environ()[%s] = %q, want it left out", k, v)
		}
	}
}
