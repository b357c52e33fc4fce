package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var restoreCmd = regexp.MustCompile("run `sh ([^`]+)`")

// TestStackRmRestoreFromAnotherFolder: run from outside the workspace
// (--root ws, a relative file:// backend), `stack rm` printed a RESTORE.txt
// path relative to the workspace, which `sh` could not open as printed, and
// RESTORE.txt named the backend relative to the folder it ran in, so that
// run from anywhere else it put the state and tags into another folder.
func TestStackRmRestoreFromAnotherFolder(t *testing.T) {
	parent := t.TempDir()
	if err := os.Mkdir(filepath.Join(parent, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := func(a ...string) []string {
		return append([]string{"--root", "ws", "--backend", "file://./state"}, a...)
	}
	for _, a := range [][]string{
		{"stack", "init", "qa"},
		{"-s", "qa", "stack", "tag", "set", "owner", "me"},
	} {
		if r := runAs(t, parent, "", nil, args(a...)...); r.Code != 0 {
			t.Fatalf("runner %v: exit %d\n%s", a, r.Code, r.Stderr)
		}
	}
	r := runAs(t, parent, "", nil, args("stack", "rm", "qa", "--yes")...)
	m := restoreCmd.FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil {
		t.Fatalf("stack rm: exit %d, no restore command\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	path := strings.Trim(m[1], "'")
	restore := exec.Command("sh", path) // as printed, from where runner ran
	restore.Dir = parent
	restore.Env = append(baseEnv(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("running the printed `sh %s` in the folder runner ran in: %v\n%s", m[1], err, out)
	}
	elsewhere := exec.Command("sh", filepath.Join(parent, path)) // and from another folder
	elsewhere.Dir = t.TempDir()
	elsewhere.Env = restore.Env
	os.Remove(filepath.Join(parent, "ws", "config", "pulumi", "Pulumi.qa.yaml"))
	if out, err := elsewhere.CombinedOutput(); err != nil {
		t.Fatalf("running RESTORE.txt from another folder: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(elsewhere.Dir); len(entries) > 0 {
		t.Errorf("RESTORE.txt run from another folder wrote there: %v", entries)
	}
	tags := runAs(t, parent, "", nil, args("-s", "qa", "stack", "tag", "ls")...)
	if !strings.Contains(tags.Stdout, "owner") {
		t.Errorf("the restored stack lacks its tag:\n%s%s", tags.Stdout, tags.Stderr)
	}
}
