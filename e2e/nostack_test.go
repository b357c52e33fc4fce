package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// tree lists every file and folder under dir, relative to it.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(dir, path); rel != "." {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestOperationsOnAStackThatDoesNotExist: destroy, preview and refresh of
// a stack with neither config nor state say so (exit 3), naming the stack
// and how to create it, and leave the workspace as it was: no environment
// file, no stack config, no state folder; the same with an environment
// file that selects no stack, and with one that selects the missing stack.
// A stack with a config file (but no state) still previews.
func TestOperationsOnAStackThatDoesNotExist(t *testing.T) {
	dir := workspace(t)
	check := func(args ...string) {
		t.Helper()
		before := tree(t, dir)
		r := run(t, dir, "", nil, args...)
		if r.Code != 3 {
			t.Fatalf("runner %v exited %d, want 3\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		for _, want := range []string{"stack nosuch does not exist", "runner stack init nosuch", "Pulumi.nosuch.yaml"} {
			if !strings.Contains(r.Stdout+r.Stderr, want) { // --json: a JSON error on stdout
				t.Errorf("runner %v does not say %q:\n%s%s", args, want, r.Stdout, r.Stderr)
			}
		}
		if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("runner %v changed the workspace:\nbefore %v\nafter  %v", args, before, after)
		}
	}
	for _, op := range [][]string{{"destroy", "--yes"}, {"preview"}, {"refresh", "--yes"}} {
		check(append([]string{"-s", "nosuch"}, op...)...)
		check(append([]string{"--json", "-s", "nosuch"}, op...)...)
	}

	envFile := filepath.Join(dir, "config", "pulumi", "environment")
	if err := os.MkdirAll(filepath.Dir(envFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(envFile, []byte("# no stack yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("-s", "nosuch", "destroy", "--yes")
	if err := os.WriteFile(envFile, []byte("PULUMI_STACK=nosuch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("destroy", "--yes")
	check("-s", "nosuch", "preview")

	// A stack with config but no state exists: it previews.
	r := run(t, dir, adminPassword, nil, "-s", "nosuch", "config", "set", "--secret", "app:adminPassword")
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	ok(t, dir, "-s", "nosuch", "preview")
	if _, err := os.Stat(runnerStackDir(dir, "nosuch")); !os.IsNotExist(err) {
		t.Errorf("preview wrote state (%v)", err)
	}
}
