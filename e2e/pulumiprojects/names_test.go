package pulumiprojects

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOneNameTwoFolders: two environments whose projects of one name are
// different folders would share that project's state on a stack (an up of
// one deletes what the other deployed), so runner.yaml is refused; one
// folder in two environments is the same project, and is fine.
func TestOneNameTwoFolders(t *testing.T) {
	w := newWS(t)
	w.write(map[string]string{
		"a/Pulumi.yaml":  "name: a\nruntime: yaml\n",
		"a2/Pulumi.yaml": "name: a\nruntime: yaml\n",
		"runner.yaml":    "providers:\n  e:\n    projects:\n      a: {path: a}\n  f:\n    projects:\n      a: {path: a2}\n  g:\n    projects:\n      a: {path: a}\n",
	})
	r := w.fails(3, "-p", "e", "show")
	want := filepath.Join(w.dir, "runner.yaml") + ":7: project a: its folder " + filepath.Join(w.dir, "a2") +
		" is not the folder " + filepath.Join(w.dir, "a") + " of project a in environment e (line 4)"
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("the error does not say %q:\n%s", want, r.Stderr)
	}
	if strings.Contains(r.Stderr, ":10:") {
		t.Errorf("the same folder in two environments is refused:\n%s", r.Stderr)
	}
}
