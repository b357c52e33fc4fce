package runtime

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
)

// TestPackageKey checks that the key of a kept package list changes with
// everything the YAML host's GetRequiredPackages reads, and only with it.
func TestPackageKey(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin", "pulumi-language-yaml")
	prog := filepath.Join(root, "prog")
	mkfile(t, bin, 0o755)
	mkfile(t, filepath.Join(prog, "Pulumi.yaml"), 0o644)
	h := &host{p: &pulumiproject.Project{Name: "p", Runtime: "yaml", Dir: prog}, prog: pulumiproject.Program{Pwd: prog},
		bin: bin, o: Options{CacheDir: filepath.Join(root, "cache")}}
	key := func() string {
		t.Helper()
		k, err := h.packageKey()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(p, body string) func() {
		return func() {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name    string
		change  func()
		changes bool
	}{
		{"nothing", func() {}, false},
		{"a file that is not YAML", write(filepath.Join(prog, "notes.txt"), "x"), false},
		{"Pulumi.yaml", write(filepath.Join(prog, "Pulumi.yaml"), "name: p\n"), true},
		{"Pulumi.yaml, same length", write(filepath.Join(prog, "Pulumi.yaml"), "name: q\n"), true},
		{"a package declaration in a subfolder", write(filepath.Join(prog, "sdks", "aws.yaml"), "packageDeclarationVersion: 1\n"), true},
		{"Main.json", write(filepath.Join(prog, "Main.json"), "{}"), true},
		{"the host binary", func() {
			if err := os.Chtimes(bin, time.Now(), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"the runtime options", func() { h.p.Options = map[string]any{"x": "y"} }, true},
	}
	for _, tt := range tests {
		before := key()
		tt.change()
		if after := key(); (after != before) != tt.changes {
			t.Errorf("%s: key changed %v, want %v", tt.name, after != before, tt.changes)
		}
	}

	c := h.packageCache()
	k := key()
	want := []source.Package{{Name: "testprov"}, {Name: "aws", Version: "6.0.0", Server: "https://example.com"}}
	c.put(k, want)
	if got, ok := c.get(k); !ok || len(got) != 2 || got[1] != want[1] {
		t.Errorf("get after put = %v, %v; want %v", got, ok, want)
	}
	if _, ok := c.get(k + "0"); ok {
		t.Error("a list kept for another key was returned")
	}
	if err := os.WriteFile(c.file, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(k); ok {
		t.Error("a damaged file was read as a list")
	}
	h.p.Options = map[string]any{"compiler": "make-template"}
	if h.packageCache().file != "" {
		t.Error("a program made by a compiler command has its package list kept")
	}
	h.p.Options, h.p.Runtime = nil, "python"
	if h.packageCache().file != "" {
		t.Error("a host other than YAML's has its package list kept")
	}
}
