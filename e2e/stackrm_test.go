package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
)

var trashLine = regexp.MustCompile(`kept in (\.runner/trash/[^;]+);`)

// trashOf returns the trash folder a stack rm's message names.
func trashOf(t *testing.T, dir string, r Result) string {
	t.Helper()
	m := trashLine.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("stack rm does not say where the stack went:\n%s%s", r.Stdout, r.Stderr)
	}
	return filepath.Join(dir, m[1])
}

// exports returns each project's `stack export` and the tags of stack dev.
func exports(t *testing.T, dir string, projects []string) map[string]string {
	t.Helper()
	out := map[string]string{"tags": ok(t, dir, "-s", "dev", "--json", "stack", "tag", "ls").Stdout}
	for _, p := range projects {
		out[p] = resources(t, ok(t, dir, "-s", "dev", "stack", "export", "--project", p).Stdout)
	}
	return out
}

// TestStackRmForceKeepsEverythingAndRestores: `stack rm --force` of a
// deployed stack removed the hand-written config and the state of live
// resources for good. Now they move to .runner/trash/<stack>-<time>, the
// environment file no longer selects the stack, and running the folder's
// RESTORE.txt puts back the same config, state and tags.
func TestStackRmForceKeepsEverythingAndRestores(t *testing.T) {
	dir := deployable(t)
	cfgPath := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	f, err := os.OpenFile(cfgPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# a comment the user wrote\n")
	f.Close()
	ok(t, dir, "stack", "select", "dev")
	ok(t, dir, "--non-interactive", "up", "--yes")
	ok(t, dir, "stack", "tag", "set", "owner", "it's the -platform team")
	ok(t, dir, "stack", "tag", "set", "--", "-dash", "x")
	projects := []string{"network", "secrets", "ca", "ingress", "app"}
	before := exports(t, dir, projects)
	cfg, _ := os.ReadFile(cfgPath)

	r := run(t, dir, "", nil, "stack", "rm", "dev", "--force", "--yes")
	if r.Code != 0 || !strings.Contains(r.Stderr, "still has resources") {
		t.Fatalf("stack rm --force --yes: exit %d, want 0 with a warning naming the resources left\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	trash := trashOf(t, dir, r)
	if _, err := os.Stat(cfgPath); !os.IsNotExist(err) {
		t.Errorf("the config file is still in place (%v)", err)
	}
	if _, err := os.Stat(runnerStackDir(dir, "dev")); !os.IsNotExist(err) {
		t.Errorf("the state is still in place (%v)", err)
	}
	if env, _ := os.ReadFile(filepath.Join(dir, "config", "pulumi", "environment")); strings.Contains(string(env), "PULUMI_STACK=dev") {
		t.Errorf("the environment file still selects the removed stack:\n%s", env)
	}
	for _, name := range []string{"Pulumi.dev.yaml", "RESTORE.txt", "tags.json", "history.json", "state/ca.json"} {
		if _, err := os.Stat(filepath.Join(trash, name)); err != nil {
			t.Errorf("the trash lacks %s: %v", name, err)
		}
	}

	restore := exec.Command("sh", filepath.Join(trash, "RESTORE.txt"))
	restore.Env = append(baseEnv(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("following RESTORE.txt: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(cfgPath); string(got) != string(cfg) {
		t.Errorf("the restored config differs:\n%s\nwant:\n%s", got, cfg)
	}
	after := exports(t, dir, projects)
	for k, want := range before {
		if after[k] != want {
			t.Errorf("after the restore, %s differs:\n%s\nwant:\n%s", k, after[k], want)
		}
	}
	if out := ok(t, dir, "stack", "ls").Stdout; !strings.Contains(out, "dev*") {
		t.Errorf("the restored stack is not selected again:\n%s", out)
	}
	ok(t, dir, "--non-interactive", "preview") // the restored stack works
}

// TestStackRmAsksOrNeedsYes: without a terminal, `stack rm` needs --yes
// (exit 2, nothing removed); on a terminal the user types the stack's
// name, and another name removes nothing.
func TestStackRmAsksOrNeedsYes(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "qa")
	cfgPath := filepath.Join(dir, "config", "pulumi", "Pulumi.qa.yaml")
	r := run(t, dir, "", nil, "stack", "rm", "qa")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--yes") {
		t.Errorf("stack rm without a terminal or --yes: exit %d, want 2 asking for --yes\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(cfgPath); err != nil {
		t.Fatalf("the refused stack rm removed the config: %v", err)
	}
	p := inTmux(t, dir, nil, nil, "stack", "rm", "qa")
	p.Answer("Type the stack's name to confirm", "qb")
	if code, screen := p.Exit(); code != 1 || !strings.Contains(screen, "nothing was removed") {
		t.Errorf("a wrong name: exit %d, want 1 saying nothing was removed\n%s", code, screen)
	}
	if _, err := os.Stat(cfgPath); err != nil {
		t.Fatalf("a wrong name removed the config: %v", err)
	}
	p = inTmux(t, dir, nil, nil, "stack", "rm", "qa")
	p.Answer("Type the stack's name to confirm", "qa")
	if code, screen := p.Exit(); code != 0 || !strings.Contains(screen, "Removed stack qa") {
		t.Errorf("the right name: exit %d, want 0\n%s", code, screen)
	}
	if _, err := os.Stat(cfgPath); !os.IsNotExist(err) {
		t.Errorf("the config is still in place (%v)", err)
	}
}

// TestStackRmNeverOverwritesATrash: two removals of a stack of the same
// name in one second get two trash folders.
func TestStackRmNeverOverwritesATrash(t *testing.T) {
	dir := workspace(t)
	var trashes []string
	for i := 0; i < 3; i++ {
		ok(t, dir, "stack", "init", "qa")
		trashes = append(trashes, trashOf(t, dir, ok(t, dir, "stack", "rm", "qa", "--yes")))
	}
	seen := map[string]bool{}
	for _, tr := range trashes {
		if seen[tr] {
			t.Errorf("two removals went to one trash %s: %v", tr, trashes)
		}
		seen[tr] = true
		if _, err := os.Stat(filepath.Join(tr, "Pulumi.qa.yaml")); err != nil {
			t.Errorf("trash %s lacks its config: %v", tr, err)
		}
	}
}

// TestStackRmRemovesNothingWhenTheConfigCannotMove: a config that cannot
// be moved (a symlink loop) stops `stack rm --force` before any state is
// removed.
func TestStackRmRemovesNothingWhenTheConfigCannotMove(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	cfgPath := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	saved := filepath.Join(dir, "saved.yaml")
	if err := os.Rename(cfgPath, saved); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "config", "pulumi", "loop")
	if err := os.Symlink(loop, cfgPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cfgPath, loop); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "stack", "rm", "dev", "--force", "--yes")
	if r.Code == 0 || !strings.Contains(r.Stderr, "nothing was removed") {
		t.Errorf("stack rm with a config that cannot move: exit %d, want a failure saying nothing was removed\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(checkpointFile(dir, "dev", "network")); err != nil {
		t.Errorf("the state was removed: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".runner", "trash")); len(entries) != 0 {
		t.Errorf("a failed stack rm left a trash folder: %v", entries)
	}
	os.Remove(cfgPath)
	os.Remove(loop)
	if err := os.Rename(saved, cfgPath); err != nil {
		t.Fatal(err)
	}
}

// TestStackRmOfALockedProjectRemovesNothing: a project another command
// holds stopped `stack rm --force` half way, after the config had moved.
// It is refused (exit 4, naming the holder) before anything moves.
func TestStackRmOfALockedProjectRemovesNothing(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.Lock(context.Background(), "secrets", "dev", backend.CurrentLockInfo("runner up (another one)"))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "stack", "rm", "dev", "--force", "--yes")
	if r.Code != 4 || !strings.Contains(r.Stderr, "runner up (another one)") || !strings.Contains(r.Stderr, "nothing was removed") {
		t.Errorf("stack rm of a locked project: exit %d, want 4 naming the holder\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")); err != nil {
		t.Errorf("the refused stack rm moved the config: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".runner", "trash")); len(entries) != 0 {
		t.Errorf("the refused stack rm made a trash folder: %v", entries)
	}
	lock.Unlock()
}
