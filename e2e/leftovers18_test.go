package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackCommandsOnAStackThatDoesNotExist: `stack tag ls -s nope`
// exited 0 with an empty table (and `tag set` wrote tags for a stack that
// does not exist); the stack commands that read or tag a stack now refuse
// it as preview does: exit 3 naming the stack and how to create it, and
// nothing written.
func TestStackCommandsOnAStackThatDoesNotExist(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	for _, args := range [][]string{
		{"stack", "tag", "ls"}, {"stack", "tag", "set", "owner", "me"}, {"stack", "tag", "rm", "owner"},
		{"stack", "history"}, {"stack", "output"}, {"stack", "export", "--project", "app"},
	} {
		for _, json := range []bool{false, true} {
			before := tree(t, dir)
			full := append([]string{"-s", "nope"}, args...)
			if json {
				full = append([]string{"--json"}, full...)
			}
			r := run(t, dir, "", nil, full...)
			if r.Code != 3 {
				t.Errorf("runner %v exited %d, want 3\n%s%s", full, r.Code, r.Stdout, r.Stderr)
				continue
			}
			for _, want := range []string{"stack nope does not exist", "runner stack init nope"} {
				if !strings.Contains(r.Stdout+r.Stderr, want) {
					t.Errorf("runner %v does not say %q:\n%s%s", full, want, r.Stdout, r.Stderr)
				}
			}
			if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("runner %v changed the workspace:\nbefore %v\nafter  %v", full, before, after)
			}
		}
	}
	// The stack that exists still works.
	ok(t, dir, "-s", "dev", "stack", "tag", "set", "owner", "me")
	if r := ok(t, dir, "-s", "dev", "stack", "tag", "ls"); !strings.Contains(r.Stdout, "owner") {
		t.Errorf("stack tag ls of dev lacks the tag:\n%s", r.Stdout)
	}
}

// TestConfigGetWithNoStackSelected: `config get KEY` with no stack
// selected printed what a new stack needs, as commands with a
// "<NAME>" placeholder (runner --stack <NAME> config set ...). It now says
// which stacks there are and the command that selects one, or, with none,
// how to create one; nothing is written. The stack commands, which said
// "no stack selected" as a usage error (exit 2) without the stacks, say
// the same.
func TestConfigGetWithNoStackSelected(t *testing.T) {
	dir := workspace(t)
	check := func(want ...string) {
		t.Helper()
		for _, args := range [][]string{{"config", "get", "app:port"}, {"config", "ls"}, {"stack", "tag", "ls"}, {"stack", "history"}} {
			before := tree(t, dir)
			r := run(t, dir, "", nil, args...)
			if r.Code != 3 || strings.Contains(r.Stderr, "<NAME>") || !strings.Contains(r.Stderr, "no stack selected") {
				t.Errorf("runner %v: exit %d, want 3 saying no stack is selected, with no placeholder\n%s", args, r.Code, r.Stderr)
			}
			for _, w := range want {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("runner %v does not say %q:\n%s", args, w, r.Stderr)
				}
			}
			if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("runner %v changed the workspace:\nbefore %v\nafter  %v", args, before, after)
			}
		}
	}
	check("has no stack yet", "runner stack init NAME")
	ok(t, dir, "stack", "init", "qa")
	ok(t, dir, "stack", "init", "dev")
	if err := os.Remove(filepath.Join(dir, "config", "pulumi", "environment")); err != nil {
		t.Fatal(err)
	}
	check("stacks: dev, qa", "runner stack select dev")
}

// TestStackRmJSONNamesTheTrash: `--json stack rm` gave the trash folder
// only inside its message; it now has fields for the folder and the
// restore script.
func TestStackRmJSONNamesTheTrash(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	r := ok(t, dir, "--json", "stack", "rm", "--yes", "dev")
	var res struct {
		Type, Message, Stack, Trash, Restore string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, r.Stdout)
	}
	if res.Type != "result" || res.Stack != "dev" || !filepath.IsAbs(res.Trash) ||
		!strings.HasPrefix(res.Trash, filepath.Join(dir, ".runner", "trash", "dev-")) || res.Restore != filepath.Join(res.Trash, "RESTORE.txt") {
		t.Fatalf("stack rm --json: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(res.Trash, "Pulumi.dev.yaml")); err != nil {
		t.Errorf("the trash folder does not hold the stack's config: %v", err)
	}
	if _, err := os.Stat(res.Restore); err != nil {
		t.Errorf("the restore script is not where the result says: %v", err)
	}
}

// TestUpOnATerminalAsksForMissingConfig: up on a terminal, on a stack
// that lacks a required value, asks for it (refusing a short answer),
// saves it encrypted, then plans with it, asks to perform the update and
// deploys: the value it just saved does not make its own plan stale.
// (Issue 18: the terminal up had no test of its own.)
func TestUpOnATerminalAsksForMissingConfig(t *testing.T) {
	dir := workspace(t)
	t.Cleanup(func() { run(t, dir, "", nil, "-s", "dev", "--non-interactive", "destroy", "--yes") })
	p := inTmux(t, dir, nil, nil, "-s", "dev", "up")
	p.Answer("(app:adminPassword)", "short")
	p.Invalid(1, "at least 8")
	p.Reply("(app:adminPassword)", adminPassword)
	p.WaitFor("Do you want to perform this update of stack dev?", 1)
	if s := p.Screen(); !strings.Contains(s, "app      preview") || !strings.Contains(s, "to create") {
		t.Fatalf("the plan before the question lacks the app's creates:\n%s", s)
	}
	p.Reply("Do you want to perform this update", "y")
	code, screen := p.Exit()
	if code != 0 || strings.Contains(screen, "the stack config changed since the plan was made") {
		t.Fatalf("the confirmed up exited %d:\n%s", code, screen)
	}
	if strings.Contains(screen, adminPassword) {
		t.Error("the terminal shows the admin password")
	}
	file := readStack(t, dir)
	if strings.Contains(file, adminPassword) || !strings.Contains(file, "app:adminPassword:\n    secure: v1:") {
		t.Fatalf("the answer is not saved encrypted:\n%s", file)
	}
	if r := ok(t, dir, "-s", "dev", "--json", "stack", "output"); !strings.Contains(r.Stdout, "url") {
		t.Errorf("the stack has no outputs after the confirmed up:\n%s", r.Stdout)
	}
	if r := ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes"); strings.Contains(r.Stdout, "to create") {
		t.Errorf("a second up plans creates again:\n%s", r.Stdout)
	}
}
