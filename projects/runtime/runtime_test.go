package runtime

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/projects/pulumiproject"
)

func TestMask(t *testing.T) {
	m := newMasker(map[string]string{"a:pw": `se"cret`, "a:short": "ab", "a:plain": "visible"}, []string{"a:pw", "a:short"})
	var out bytes.Buffer
	w := m.writer(&out)
	for _, part := range []string{"the pw is se", "\"cret and ", `json "se\"cret"` + "\n", "ab stays visible\n", "tail se\"cret"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	want := "the pw is [secret] and json \"[secret]\"\nab stays visible\ntail [secret]"
	if out.String() != want {
		t.Errorf("masked output\n%q\nwant\n%q", out.String(), want)
	}
}

func TestNSConfig(t *testing.T) {
	got := nsConfig(map[string]string{"app:k": "1", "aws:region": "x", "app:config:k2": "2"})
	for k, want := range map[string]string{"app:config:k": "1", "aws:config:region": "x", "app:config:k2": "2"} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q (%v)", k, got[k], want, got)
		}
	}
}

func mkfile(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), mode); err != nil {
		t.Fatal(err)
	}
}

func TestFindRunScript(t *testing.T) {
	root := t.TempDir()
	prog := filepath.Join(root, "apps", "web")
	if _, ok := findRunScript(prog); ok {
		t.Fatal("found a run script where there is none")
	}
	mkfile(t, filepath.Join(root, "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js"), 0o644)
	got, ok := findRunScript(prog)
	if want := filepath.Join(root, "node_modules", "@pulumi", "pulumi", "cmd", "run"); !ok || got != want {
		t.Errorf("findRunScript = %s, %v; want %s (node_modules of a folder above)", got, ok, want)
	}
}

// TestFindHost: PATH first, else the newest version in the plugin cache.
func TestFindHost(t *testing.T) {
	home := t.TempDir()
	for _, v := range []string{"1.9.0", "1.32.0", "1.10.0"} {
		mkfile(t, filepath.Join(home, "plugins", "language-yaml-v"+v, "pulumi-language-yaml"), 0o755)
	}
	o := Options{Environ: []string{"PATH=/nonexistent", "PULUMI_HOME=" + home}}
	got, err := findHost("yaml", o)
	if want := filepath.Join(home, "plugins", "language-yaml-v1.32.0", "pulumi-language-yaml"); err != nil || got != want {
		t.Errorf("findHost = %s, %v; want %s", got, err, want)
	}
	bin := t.TempDir()
	mkfile(t, filepath.Join(bin, "pulumi-language-yaml"), 0o755)
	o.Environ = []string{"PATH=" + bin, "PULUMI_HOME=" + home}
	if got, _ := findHost("yaml", o); got != filepath.Join(bin, "pulumi-language-yaml") {
		t.Errorf("findHost = %s, want the one on PATH", got)
	}
	if _, err := findHost("python", o); err == nil || !strings.Contains(err.Error(), "pulumi-language-python is neither on PATH nor in the plugin cache") {
		t.Errorf("a missing host: %v", err)
	}
}

func TestForNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		runtime string
		opts    map[string]any
		env     []string
		want    string
	}{
		{"nodejs", nil, []string{"PATH=/nonexistent"}, "node is not on PATH"},
		{"go", nil, []string{"PATH=/nonexistent"}, "the go command is not on PATH"},
		{"go", map[string]any{"binary": "bin/prog"}, nil, "runtime.options.binary " + filepath.Join(dir, "bin", "prog") + " is not an executable file"},
		{"python", nil, []string{"PATH=/nonexistent", "PULUMI_HOME=" + dir}, "pulumi-language-python is neither on PATH"},
	}
	for _, tt := range tests {
		p := &pulumiproject.Project{Name: "p", Dir: dir, File: filepath.Join(dir, "Pulumi.yaml"), Runtime: tt.runtime, Options: tt.opts}
		_, err := For(p, Options{Environ: tt.env})
		var missing *MissingError
		if !errors.As(err, &missing) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want a *MissingError saying %q", tt.runtime, err, tt.want)
		}
	}
}

// TestFingerprint: an edit of any file of the program's module changes
// it, so the program is built again.
func TestFingerprint(t *testing.T) {
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "go.mod"), 0o644)
	mkfile(t, filepath.Join(root, "prog", "main.go"), 0o644)
	mkfile(t, filepath.Join(root, "lib", "lib.go"), 0o644)
	g := &golang{prog: pulumiproject.Program{Pwd: filepath.Join(root, "prog")}, goBin: "/nonexistent/go"}
	a, err := g.fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := g.fingerprint(); a != b {
		t.Fatal("the fingerprint of unchanged sources changed")
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(root, "lib", "lib.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if b, _ := g.fingerprint(); a == b {
		t.Error("an edit of another package of the module left the fingerprint unchanged")
	}
}
