package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var saltLine = regexp.MustCompile(`(?m)^encryptionsalt:.*\n`)

// writeStack replaces the dev stack config of a workspace.
func writeStack(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(stackFile(dir), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A stack config that lost its encryptionsalt line, or has it empty, gets
// back the salt the state records, and the state's secrets stay readable:
// refresh, preview and destroy each succeed and leave the file as it was.
func TestMissingSaltIsRestoredFromTheState(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes")
	orig := readStack(t, dir)
	if !saltLine.MatchString(orig) {
		t.Fatalf("no encryptionsalt after up:\n%s", orig)
	}
	for _, tc := range []struct {
		name, body string
		args       []string
	}{
		{"refresh without the line", saltLine.ReplaceAllString(orig, ""), []string{"refresh", "--yes"}},
		{"preview without the line", saltLine.ReplaceAllString(orig, ""), []string{"preview"}},
		{"config get with an empty salt", saltLine.ReplaceAllString(orig, "encryptionsalt:\n"), []string{"config", "get", "app:adminPassword"}},
		{"preview with an empty salt", saltLine.ReplaceAllString(orig, "encryptionsalt:\n"), []string{"preview"}},
		{"destroy without the line", saltLine.ReplaceAllString(orig, ""), []string{"destroy", "--yes"}},
	} {
		// Each case starts from the file as up left it, less its salt.
		writeStack(t, dir, tc.body)
		r := run(t, dir, "", nil, append([]string{"--non-interactive"}, tc.args...)...)
		if r.Code != 0 {
			t.Errorf("%s: exit %d\n%s", tc.name, r.Code, r.Stderr)
		}
		if got := readStack(t, dir); got != orig {
			t.Errorf("%s: the stack config is not back as it was:\n%s\nwant:\n%s\nstderr:\n%s", tc.name, got, orig, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "salt recorded in the state of project") {
			t.Errorf("%s: nothing says where the salt came from:\n%s", tc.name, r.Stderr)
		}
		if tc.args[0] == "config" && r.Stdout != adminPassword+"\n" {
			t.Errorf("%s: the secret reads %q", tc.name, r.Stdout)
		}
		writeStack(t, dir, orig)
	}
}

// A stack config whose salt is not the one the state records is refused,
// naming the file and the state, and is left alone.
func TestDifferentSaltNamesTheFileAndTheState(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes")
	orig := readStack(t, dir)
	// Another stack config made with the same passphrase has another salt.
	other := workspace(t)
	wantRun(t, other, "", nil, 0, "-s", "dev", "config", "set", "app:port", "1")
	otherSalt := saltLine.FindString(readStack(t, other))
	if otherSalt == "" || otherSalt == saltLine.FindString(orig) {
		t.Fatalf("no other salt: %q", otherSalt)
	}
	body := saltLine.ReplaceAllString(orig, otherSalt)
	writeStack(t, dir, body)
	for _, args := range [][]string{{"preview"}, {"refresh", "--yes"}, {"destroy", "--yes"}, {"config", "get", "app:adminPassword"}} {
		r := wantRun(t, dir, "", nil, 3, append([]string{"--non-interactive"}, args...)...)
		for _, want := range []string{stackFile(dir), "differs from the salt recorded in the state of project",
			filepath.Join(dir, ".runner", ".pulumi", "stacks"), "dev.json"} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("%v: the error lacks %q:\n%s", args, want, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, "incorrect passphrase") {
			t.Errorf("%v: the error blames the passphrase:\n%s", args, r.Stderr)
		}
		if readStack(t, dir) != body {
			t.Fatalf("%v changed the stack config", args)
		}
	}
	writeStack(t, dir, orig) // for the cleanup's destroy
}

// A stack config with secrets but no salt, and no state to take it from,
// is refused rather than given a fresh salt its secrets do not open.
func TestSecretsWithoutASaltAreNotGivenAFreshOne(t *testing.T) {
	dir := workspace(t)
	wantRun(t, dir, adminPassword, nil, 0, "-s", "dev", "config", "set", "--secret", "app:adminPassword")
	body := saltLine.ReplaceAllString(readStack(t, dir), "")
	writeStack(t, dir, body)
	for _, args := range [][]string{{"preview"}, {"config", "get", "app:adminPassword"}, {"config", "set", "--secret", "app:x", "y"}} {
		r := wantRun(t, dir, "", nil, 3, append([]string{"--non-interactive"}, args...)...)
		if !strings.Contains(r.Stderr, stackFile(dir)+" line 2: app:adminPassword is a secret, but the file has no encryptionsalt") {
			t.Errorf("%v:\n%s", args, r.Stderr)
		}
		if readStack(t, dir) != body {
			t.Fatalf("%v wrote the stack config:\n%s", args, readStack(t, dir))
		}
	}
}

// An empty encryptionsalt: on a stack without secrets is a missing one: a
// fresh salt is written in its place as a plain value.
func TestEmptySaltIsWrittenPlain(t *testing.T) {
	dir := withStackFile(t, []byte("# dev\nencryptionsalt:\nconfig:\n  app:port: \"8443\"\n"))
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "--secret", "app:adminPassword", adminPassword)
	got := readStack(t, dir)
	if !regexp.MustCompile(`^# dev\nencryptionsalt: v1:[A-Za-z0-9+/=]+:v1:\S+\nconfig:\n  app:port: "8443"\n`).MatchString(got) || strings.Contains(got, "!!") {
		t.Fatalf("stack config:\n%s", got)
	}
	if r := wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "get", "app:adminPassword"); r.Stdout != adminPassword+"\n" {
		t.Fatalf("the secret reads %q", r.Stdout)
	}
}
