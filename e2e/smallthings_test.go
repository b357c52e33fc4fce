package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackMessagesAndSelect: the small defects of issue 18's "messages"
// list, each through the CLI.
func TestStackMessagesAndSelect(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	envFile := filepath.Join(dir, "config", "pulumi", "environment")

	// A stack of the environment variable PULUMI_STACK is not "given on
	// the command line".
	r := run(t, dir, "", []string{"PULUMI_STACK=qa"}, "config", "ls")
	if r.Code != 2 || !strings.Contains(r.Stderr, "environment variable PULUMI_STACK") || strings.Contains(r.Stderr, "command line") {
		t.Errorf("PULUMI_STACK=qa against the file's dev: exit %d, want 2 naming the environment variable\n%s", r.Code, r.Stderr)
	}
	if r := run(t, dir, "", nil, "-s", "qa", "config", "ls"); !strings.Contains(r.Stderr, "given on the command line") {
		t.Errorf("-s qa against the file's dev does not say it was given on the command line:\n%s", r.Stderr)
	}

	// The stack-name rule says a name may not start with '-'.
	if r := run(t, dir, "", nil, "stack", "init", "--", "-x"); r.Code != 2 || !strings.Contains(r.Stderr, "not '-'") {
		t.Errorf("stack init -x: exit %d, want 2 with the rule on the first character\n%s", r.Code, r.Stderr)
	}

	// --root naming a file says it is not a folder.
	if r := runAs(t, dir, "", nil, "--root", "/etc/passwd", "stack", "ls"); r.Code != 2 || !strings.Contains(r.Stderr, "/etc/passwd is not a folder") {
		t.Errorf("--root /etc/passwd: exit %d, want 2 saying it is not a folder\n%s", r.Code, r.Stderr)
	}

	// stack select of a stack that does not exist fails, unless --create.
	before, _ := os.ReadFile(envFile)
	r = run(t, dir, "", nil, "stack", "select", "dve")
	if r.Code != 3 || !strings.Contains(r.Stderr, "stack dve does not exist") || !strings.Contains(r.Stderr, "--create") {
		t.Errorf("stack select dve: exit %d, want 3 saying it does not exist\n%s", r.Code, r.Stderr)
	}
	if after, _ := os.ReadFile(envFile); string(after) != string(before) {
		t.Errorf("the refused select changed the environment file:\n%s", after)
	}
	ok(t, dir, "stack", "select", "--create", "qa")
	if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.qa.yaml")); err != nil {
		t.Errorf("stack select --create qa made no stack config: %v", err)
	}
	if env, _ := os.ReadFile(envFile); !strings.Contains(string(env), "PULUMI_STACK=qa") {
		t.Errorf("stack select --create qa did not select it:\n%s", env)
	}
}

// TestConfigSetWritesThroughASymlink: a stack config linked into the
// workspace was replaced by a regular file; the link must stay and its
// target change.
func TestConfigSetWritesThroughASymlink(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	cfg := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	kept := filepath.Join(dir, "elsewhere", "dev.yaml")
	os.MkdirAll(filepath.Dir(kept), 0o755)
	if err := os.Rename(cfg, kept); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../elsewhere/dev.yaml", cfg); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "config", "set", "app:port", "9443")
	if st, err := os.Lstat(cfg); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("config set replaced the symlink: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(kept); !strings.Contains(string(b), "app:port: \"9443\"") {
		t.Errorf("the link's target does not hold the value:\n%s", b)
	}
}

// TestRefreshAsksOrNeedsYes: refresh rewrites the state, so it asks like
// up; without a terminal it needs --yes, as Pulumi's does.
func TestRefreshAsksOrNeedsYes(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	r := run(t, dir, "", nil, "-s", "dev", "refresh")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--yes") {
		t.Errorf("refresh without a terminal or --yes: exit %d, want 2 asking for --yes\n%s", r.Code, r.Stderr)
	}
	ok(t, dir, "-s", "dev", "refresh", "--yes")
}

// TestCtrlCAtTheFirstPromptLeavesNoStackConfig: the encryptionsalt of a
// new stack was written before the first question, so Ctrl-C there left a
// half-made stack config behind.
func TestCtrlCAtTheFirstPromptLeavesNoStackConfig(t *testing.T) {
	dir := workspace(t)
	p := inTmux(t, dir, nil, nil, "-s", "dev", "up")
	p.WaitFor("app:adminPassword", 1)
	p.Keys("C-c")
	if code, screen := p.Exit(); code != 130 {
		t.Errorf("Ctrl-C at the first prompt: exit %d, want 130\n%s", code, screen)
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")); !os.IsNotExist(err) {
		t.Errorf("Ctrl-C at the first prompt left a stack config (%v)", err)
	}
}
