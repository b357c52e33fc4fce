package clouds

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// snapshot describes every file and folder under root: its mode, its
// modification time and, for a file, its contents.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d", info.Mode(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(data)
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writesNothing runs a command that must exit 0 and fails the test if any
// file or folder of the test's world (workspace, HOME, PULUMI_HOME, the
// kubeconfig, the fake cloud) appeared, went, or changed its contents,
// mode or modification time.
func (e *env) writesNothing(t *testing.T, args ...string) {
	t.Helper()
	before := snapshot(t, e.root())
	e.ok(args...)
	after := snapshot(t, e.root())
	for p, was := range before {
		switch now, ok := after[p]; {
		case !ok:
			t.Errorf("%v removed %s", args, p)
		case now != was:
			t.Errorf("%v changed %s", args, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%v wrote %s", args, p)
		}
	}
}

// TestReadOnlyCommandsWriteNothing: preview rewrote Pulumi.<stack>.yaml
// with the values it defaulted (a CI checkout became dirty). Validation
// now only stages defaults, and up saves them; every read-only command
// (preview, show, config get/ls, stack ls/output/export/history, and
// validate with nothing to ask) leaves every file as it was: contents,
// mode and modification time, and no file or folder added.
func TestReadOnlyCommandsWriteNothing(t *testing.T) {
	e := maraWorkspace(t)
	for _, pkg := range []string{"aws", "kubernetes"} { // the fakes make these
		if err := os.MkdirAll(filepath.Join(e.cloud, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	readOnly := [][]string{
		{"-p", "aws", "preview"},
		{"-p", "aws", "--json", "preview"},
		{"-p", "aws", "validate"},
		{"-p", "aws", "show"},
		{"config", "get", "aws:region"},
		{"config", "ls"},
		{"--json", "config", "ls"},
		{"stack", "ls"},
	}
	for _, args := range readOnly {
		e.writesNothing(t, args...)
	}
	cfg := filepath.Join(e.dir, "config", "pulumi", "Pulumi.dev.yaml")
	before, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.ok("-p", "aws", "up", "--yes")
	after, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(before, after) {
		t.Error("up did not save the defaulted values into the stack config")
	}
	readOnly = append(readOnly, [][]string{
		{"stack", "output", "--project", "eks"},
		{"stack", "export", "--project", "vpc"},
		{"stack", "history", "--project", "vpc"},
		{"--json", "stack", "ls"},
	}...)
	for _, args := range readOnly {
		e.writesNothing(t, args...)
	}
}

// TestConfigRmOfAMissingStackWritesNothing: config rm on a stack that did
// not exist wrote PULUMI_STACK into the environment file (and made the
// config folder); it is now a validation error (exit 3) naming the stack,
// and nothing is written.
func TestConfigRmOfAMissingStackWritesNothing(t *testing.T) {
	e := newEnv(t, "us-west-1")
	before := snapshot(t, e.root())
	r := e.fails(3, "config", "rm", "aws:region")
	if !regexp.MustCompile(`stack dev does not exist`).MatchString(r.Stderr) {
		t.Errorf("config rm on a missing stack does not say the stack does not exist:\n%s", r)
	}
	if after := snapshot(t, e.root()); len(after) != len(before) {
		t.Errorf("config rm on a missing stack wrote files: %d before, %d after", len(before), len(after))
	}
}
