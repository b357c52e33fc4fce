package buildcache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildCachesBySource(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	mod := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/hello\n\ngo 1.21\n")
	write("main.go", "package main\n\nfunc main() { println(\"one\") }\n")
	spec := Spec{Name: "runner-buildcache-test", Module: mod, Commands: map[string]string{"hello": "."}}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(os.TempDir(), spec.Name)) })
	run := func(dir string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(dir, "hello")).CombinedOutput()
		if err != nil {
			t.Fatalf("run hello: %v %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	first, err := Build(spec)
	if err != nil || run(first) != "one" {
		t.Fatalf("Build = %s, %v", first, err)
	}
	again, err := Build(spec)
	if err != nil || again != first {
		t.Errorf("Build of the same sources = %s, %v; want the cached %s", again, err, first)
	}
	write("main_test.go", "package main\n") // tests do not count
	if same, _ := Build(spec); same != first {
		t.Errorf("a test file changed the key: %s", same)
	}
	write("main.go", "package main\n\nfunc main() { println(\"two\") }\n")
	second, err := Build(spec)
	if err != nil || second == first || run(second) != "two" {
		t.Errorf("Build after an edit = %s, %v; want a new build", second, err)
	}
	spec.Module = filepath.Join(mod, "nope")
	if _, err := Build(spec); err == nil {
		t.Error("Build of a missing module succeeded")
	}
}
