package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// parallel starts one runner process per argument list at once and waits
// for them all; it fails the test if any exits non-zero.
func parallel(t *testing.T, dir string, argLists [][]string) {
	t.Helper()
	cmds := make([]*exec.Cmd, len(argLists))
	outs := make([]*bytes.Buffer, len(argLists))
	for i, args := range argLists {
		cmd := exec.Command(binary, append([]string{"--root", dir}, args...)...)
		cmd.Dir, cmd.Env = dir, baseEnv()
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		cmds[i] = cmd
	}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("runner %s: %v\n%s", strings.Join(argLists[i], " "), err, outs[i])
		}
	}
}

// Concurrent `config set` on a new workspace all land: each also writes
// the environment file, and the first writes the salt the others use.
func TestConcurrentConfigSetOnANewStack(t *testing.T) {
	dir := workspace(t)
	const n = 12
	want := map[string]string{}
	var sets [][]string
	for i := range n {
		sets = append(sets, []string{"-s", "dev", "config", "set", fmt.Sprintf("app:k%d", i), fmt.Sprintf("v%d", i)})
		want[fmt.Sprintf("app:k%d", i)] = fmt.Sprintf("v%d", i)
	}
	parallel(t, dir, sets)
	checkKeys(t, dir, want)
	env, _ := os.ReadFile(filepath.Join(dir, "config", "pulumi", "environment"))
	if string(env) != "PULUMI_STACK=dev\n" {
		t.Errorf("environment file %q", env)
	}
}

// Concurrent `config set` and `config rm` on an existing stack all land.
func TestConcurrentConfigSetAndRm(t *testing.T) {
	dir := workspace(t)
	const n = 12
	want := map[string]string{}
	for i := range n / 2 {
		wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", fmt.Sprintf("app:k%d", i), "old")
	}
	var mixed [][]string
	for i := n / 2; i < n+n/2; i++ {
		mixed = append(mixed, []string{"config", "set", fmt.Sprintf("app:k%d", i), fmt.Sprintf("v%d", i)})
		want[fmt.Sprintf("app:k%d", i)] = fmt.Sprintf("v%d", i)
	}
	for i := range n / 2 {
		mixed = append(mixed, []string{"config", "rm", fmt.Sprintf("app:k%d", i)})
	}
	parallel(t, dir, mixed)
	checkKeys(t, dir, want)
}

// checkKeys fails unless the dev stack config holds exactly want.
func checkKeys(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	file := readStack(t, dir)
	got := 0
	for _, line := range strings.Split(file, "\n") {
		if strings.HasPrefix(line, "  app:k") {
			got++
		}
	}
	for k, v := range want {
		if !strings.Contains(file, "  "+k+": "+v+"\n") {
			t.Errorf("%s: %s is missing", k, v)
		}
	}
	if got != len(want) {
		t.Errorf("%d keys in the file, want %d:\n%s", got, len(want), file)
	}
}
