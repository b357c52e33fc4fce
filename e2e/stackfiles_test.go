package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/testenv"
)

// TestStackLsListsAroundAnUnreadableSnapshot: one corrupt snapshot does
// not hide the other projects and stacks: stack ls lists them, marks that
// project unreadable (a column mark and a message on stderr naming the
// file; with --json an "error" field) and exits 1.
func TestStackLsListsAroundAnUnreadableSnapshot(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	ok(t, dir, "stack", "init", "qa")
	ok(t, dir, "stack", "select", "dev")
	snap := checkpointFile(dir, "dev", "network")
	if err := os.WriteFile(snap, []byte(`{"version": 3, "deployment": {`), 0o600); err != nil {
		t.Fatal(err)
	}

	r := run(t, dir, "", nil, "stack", "ls")
	if r.Code != 1 {
		t.Fatalf("stack ls exited %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"network(unreadable)", "secrets", "qa"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stack ls does not list %q:\n%s", want, r.Stdout)
		}
	}
	for _, want := range []string{"stack dev, project network: unreadable", snap} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stack ls does not say %q on stderr:\n%s", want, r.Stderr)
		}
	}

	r = run(t, dir, "", nil, "--json", "stack", "ls")
	if r.Code != 1 {
		t.Fatalf("stack ls --json exited %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var list []struct {
		Name     string `json:"name"`
		Projects []struct {
			Name      string `json:"name"`
			Resources int    `json:"resourceCount"`
			Error     string `json:"error"`
		} `json:"projects"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("stack ls --json is not one JSON document: %v\n%s", err, r.Stdout)
	}
	got := map[string]string{}
	for _, s := range list {
		for _, p := range s.Projects {
			got[s.Name+"/"+p.Name] = p.Error
			if p.Error == "" && p.Resources == 0 {
				t.Errorf("%s/%s lists no resources", s.Name, p.Name)
			}
		}
		got[s.Name] = "listed"
	}
	if e := got["dev/network"]; !strings.HasPrefix(e, "unreadable: ") || !strings.Contains(e, snap) {
		t.Errorf("dev/network's error is %q", e)
	}
	if e, ok := got["dev/secrets"]; !ok || e != "" {
		t.Errorf("dev/secrets: listed %v, error %q", ok, e)
	}
	if got["qa"] != "listed" {
		t.Errorf("stack qa is not listed: %s", r.Stdout)
	}
}

// TestStackExportFileErrorsNameTheFile: an export to a folder that does
// not exist, to a folder, or to a read-only file fails naming the file and
// what to do, and leaves nothing behind; a good --file is written 0600.
func TestStackExportFileErrorsNameTheFile(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "secrets")
	out := t.TempDir()
	readOnly := filepath.Join(out, "read-only.json")
	if err := os.WriteFile(readOnly, []byte("keep me\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	testenv.ReadOnly(t, readOnly) // root writes a 0400 file; an immutable one it cannot
	cases := []struct{ file, want string }{
		{filepath.Join(out, "nope", "out.json"), "cannot write the export to " + filepath.Join(out, "nope", "out.json") + ": the folder " + filepath.Join(out, "nope") + " does not exist"},
		{out, "cannot write the export to " + out + ": it is a folder; give a file name"},
		{readOnly, "cannot write the export to " + readOnly + ": the file is read-only"},
	}
	for _, c := range cases {
		r := run(t, dir, "", nil, "-s", "dev", "stack", "export", "--project", "secrets", "--file", c.file)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("export --file %s: exit %d, want 1 and %q:\n%s", c.file, r.Code, c.want, r.Stderr)
		}
	}
	if b, _ := os.ReadFile(readOnly); string(b) != "keep me\n" {
		t.Errorf("the read-only file was changed")
	}
	good := filepath.Join(out, "secrets.json")
	ok(t, dir, "-s", "dev", "stack", "export", "--project", "secrets", "--file", good)
	if st, err := os.Stat(good); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the export: %v %v", st, err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}
