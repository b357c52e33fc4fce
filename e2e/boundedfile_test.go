package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUserNamedFilesAreBounded: every file a user names, and the state
// files, is read only when it is a regular file under its kind's limit. A
// device (/dev/zero grew runner to 23 GB), a named pipe (it hung the run)
// or a file over the limit is refused, exit 3, naming the file and what it
// is or the limit.
func TestUserNamedFilesAreBounded(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "-s", "dev", "stack", "init", "dev")
	for _, kv := range [][2]string{{"kubernetes:kubeconfig", "/dev/zero"}, {"kubernetes:context_name", "c"}, {"kubernetes:cluster_name", "c"}} {
		ok(t, dir, "-s", "dev", "config", "set", kv[0], kv[1])
	}
	for _, k := range []string{"prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		if r := run(t, dir, "a-secret-value", nil, "-s", "dev", "config", "set", "--secret", k); r.Code != 0 {
			t.Fatalf("config set --secret %s: %s", k, r.Stderr)
		}
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		return path
	}
	bigPlan := huge("big-plan.json", 512<<20+1)
	bigEnv := huge("big-environment", 1<<20+1)
	bigPass := huge("big-passphrase", 64<<10+1)
	noPass := []string{"PULUMI_CONFIG_PASSPHRASE="}
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		wants []string
	}{
		{"environment file /dev/zero", nil, []string{"--env-file", "/dev/zero", "-s", "dev", "config", "ls"},
			[]string{"/dev/zero", "character device"}},
		{"environment file too large", nil, []string{"--env-file", bigEnv, "-s", "dev", "config", "ls"},
			[]string{bigEnv, "1 MiB"}},
		{"passphrase file /dev/zero", append(noPass, "PULUMI_CONFIG_PASSPHRASE_FILE=/dev/zero"), []string{"-s", "dev", "config", "ls", "--show-secrets"},
			[]string{"/dev/zero", "character device"}},
		{"passphrase file a pipe", append(noPass, "PULUMI_CONFIG_PASSPHRASE_FILE="+pipe), []string{"-s", "dev", "config", "ls", "--show-secrets"},
			[]string{pipe, "named pipe"}},
		{"passphrase file too large", append(noPass, "PULUMI_CONFIG_PASSPHRASE_FILE="+bigPass), []string{"-s", "dev", "config", "ls", "--show-secrets"},
			[]string{bigPass, "64 KiB"}},
		{"plan a pipe", nil, []string{"-s", "dev", "--non-interactive", "up", "--yes", "--plan", pipe},
			[]string{pipe, "named pipe"}},
		{"plan too large", nil, []string{"-s", "dev", "--non-interactive", "up", "--yes", "--plan", bigPlan},
			[]string{bigPlan, "512 MiB"}},
		{"stack import /dev/zero", nil, []string{"-s", "dev", "stack", "import", "--project", "ca", "--file", "/dev/zero"},
			[]string{"/dev/zero", "character device"}},
		{"stack import a pipe", nil, []string{"-s", "dev", "stack", "import", "--project", "ca", "--file", pipe},
			[]string{pipe, "named pipe"}},
		{"kubeconfig /dev/zero", nil, []string{"-p", "kubeconfig", "-s", "dev", "--non-interactive", "validate"},
			[]string{"/dev/zero", "character device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, dir, "", tc.env, tc.args...)
			if r.Code != 3 {
				t.Errorf("exit %d, want 3\nstderr:\n%s", r.Code, r.Stderr)
			}
			for _, w := range tc.wants {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("the error does not say %q:\n%s", w, r.Stderr)
				}
			}
		})
	}
}

// TestSpecialConfigAndStateFilesAreRefused: a stack config or a state file
// that is a named pipe or a device is refused, exit 3, naming it.
func TestSpecialConfigAndStateFilesAreRefused(t *testing.T) {
	dir := workspace(t)
	cfg := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "config", "ls")
	if r.Code != 3 || !strings.Contains(r.Stderr, cfg) || !strings.Contains(r.Stderr, "named pipe") {
		t.Errorf("config ls on a piped stack config: exit %d, want 3 naming %s as a named pipe\n%s", r.Code, cfg, r.Stderr)
	}
	os.Remove(cfg)
	ok(t, dir, "-s", "dev", "stack", "init", "dev")
	snap := checkpointFile(dir, "dev", "ca")
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", snap); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", nil, "-s", "dev", "stack", "export", "--project", "ca")
	if r.Code != 3 || !strings.Contains(r.Stderr, snap) || !strings.Contains(r.Stderr, "character device") {
		t.Errorf("stack export of a /dev/zero snapshot: exit %d, want 3 naming %s\n%s", r.Code, snap, r.Stderr)
	}
}

// TestWorkspaceFilesAndStdinAreBounded: runner.yaml, a user project's
// Pulumi.yaml and a value piped into `config set` are bounded too.
func TestWorkspaceFilesAndStdinAreBounded(t *testing.T) {
	dir := workspace(t)
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "runner.yaml")); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "providers")
	if r.Code != 3 || !strings.Contains(r.Stderr, "the workspace file") || !strings.Contains(r.Stderr, "character device") {
		t.Errorf("providers with runner.yaml -> /dev/zero: exit %d, want 3 naming it\n%s", r.Code, r.Stderr)
	}
	os.Remove(filepath.Join(dir, "runner.yaml"))
	os.MkdirAll(filepath.Join(dir, "app"), 0o755)
	os.WriteFile(filepath.Join(dir, "runner.yaml"), []byte("providers:\n  web:\n    projects:\n      app: {path: app}\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "app", "Pulumi.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "", nil, "providers")
	if r.Code != 3 || !strings.Contains(r.Stderr, "the project file") || !strings.Contains(r.Stderr, "named pipe") {
		t.Errorf("providers with a piped Pulumi.yaml: exit %d, want 3 naming it\n%s", r.Code, r.Stderr)
	}
	os.Remove(filepath.Join(dir, "runner.yaml"))

	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	cmd := exec.Command(binary, "--root", dir, "-s", "dev", "config", "set", "app:blob")
	cmd.Env, cmd.Stdin = baseEnv(), zero
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(string(out), "16 MiB") {
		t.Errorf("config set from /dev/zero: %v, want exit 3 naming the limit\n%s", err, out)
	}
}
