package pulumiprojects

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExample deploys examples/workspace as the README says: a JavaScript
// project on runner's built-in random plugin and a YAML project reading it
// by stack reference, offline, with its on_success command.
func TestExample(t *testing.T) {
	w := newWS(t)
	w.withHosts(t, true)
	src := filepath.Join("..", "..", "examples", "workspace")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "node_modules") || strings.Contains(p, ".runner") || strings.Contains(p, "config") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return writeFile(filepath.Join(w.dir, rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nodeModules(t), filepath.Join(w.dir, "names", "node_modules")); err != nil {
		t.Fatal(err)
	}
	r := w.ok("-p", "demo", "-s", "dev", "up", "--yes")
	m := regexp.MustCompile(`greeting is now: Hello, ([a-z0-9]{8})!`).FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("the on_success command did not print the greeting:\n%s", r.Stdout)
	}
	outs := w.outputsOf("demo", "greeting")
	if outs["message"] != "Hello, "+m[1]+"!" || outs["password"] != "[secret]" {
		t.Errorf("greeting's outputs: %v", outs)
	}
	w.ok("-p", "demo", "-s", "dev", "destroy", "--yes")
}
