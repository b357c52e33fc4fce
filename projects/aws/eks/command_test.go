package eks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExecCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "runner")
	other := filepath.Join(dir, "other", "runner")
	goRun := filepath.Join(dir, "go-build2716/b001/exe/runner")
	for _, p := range []string{bin, other, goRun} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "links")
	if err := os.MkdirAll(link, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(link, "runner")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, exe, path, want, err string
	}{
		{"on PATH", bin, filepath.Dir(bin), "runner", ""},
		{"on PATH through a link", bin, link, "runner", ""},
		{"PATH finds another runner first", bin, filepath.Dir(other) + ":" + filepath.Dir(bin), bin, ""},
		{"not on PATH", bin, "/nonexistent", bin, ""},
		{"a relative PATH folder is not trusted", bin, "bin", bin, ""},
		{"go run's temporary build", goRun, filepath.Dir(goRun), "", "a temporary build of `go run`"},
		{"unknown", "", "", "", "does not know its own executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "a relative PATH folder is not trusted" {
				t.Chdir(dir)
			}
			got, err := ExecCommand(tt.exe, tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestTemporaryBuild(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build1234/b001/exe/runner":     true,
		"/var/tmp/x/go-build99/b001/exe/runner": true,
		"/usr/local/bin/runner":                 false,
		"/home/u/go/bin/runner":                 false,
		"/home/u/exe/runner":                    false,
		"/home/u/go-build-notes/b1/exe/runner":  false,
	} {
		if got := TemporaryBuild(path); got != want {
			t.Errorf("TemporaryBuild(%s) = %v, want %v", path, got, want)
		}
	}
}
