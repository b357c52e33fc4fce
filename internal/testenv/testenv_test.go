package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of ending.
type recorder struct {
	testing.TB
	fatal, skip string
}

type stop struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(f string, a ...any) {
	r.fatal = strings.TrimSpace(sprintf(f, a...))
	panic(stop{})
}
func (r *recorder) Skipf(f string, a ...any) {
	r.skip = strings.TrimSpace(sprintf(f, a...))
	panic(stop{})
}

func run(r *recorder, f func()) {
	defer func() {
		if v := recover(); v != nil && v != (stop{}) {
			panic(v)
		}
	}()
	f()
}

func TestUnavailable(t *testing.T) {
	for _, tt := range []struct {
		ci, set    bool
		value      string
		fail, skip bool
	}{
		{set: false, skip: true},
		{set: true, value: "", skip: true},
		{set: true, value: "false", skip: true},
		{set: true, value: "0", skip: true},
		{set: true, value: "true", fail: true},
		{set: true, value: "1", fail: true},
		{set: true, value: "yes", fail: true},
	} {
		t.Run(tt.value, func(t *testing.T) {
			if tt.set {
				t.Setenv("CI", tt.value)
			} else {
				t.Setenv("CI", "")
				os.Unsetenv("CI")
			}
			r := &recorder{TB: t}
			run(r, func() { Unavailable(r, "tmux is not installed") })
			if tt.fail != (r.fatal != "") || tt.skip != (r.skip != "") {
				t.Fatalf("CI=%q (set %v): fatal %q, skip %q", tt.value, tt.set, r.fatal, r.skip)
			}
			if !strings.Contains(r.fatal+r.skip, "tmux is not installed") {
				t.Fatalf("the reason is not said: %q %q", r.fatal, r.skip)
			}
		})
	}
}

func TestModuleRootAndShared(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "internal", "testenv", "testenv.go")); err != nil {
		t.Fatalf("ModuleRoot = %s: %v", root, err)
	}
	t.Setenv("CI", "true")
	r := &recorder{TB: t}
	run(r, func() { Shared(r, "no-such-reference-file") })
	if !strings.Contains(r.fatal, "no-such-reference-file") {
		t.Fatalf("a missing shared file under CI: fatal %q, skip %q", r.fatal, r.skip)
	}
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }

func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("set", func(t *testing.T) {
		ReadOnly(t, file)
		ReadOnly(t, sub)
		if err := os.WriteFile(file, []byte("new"), 0o644); err == nil {
			t.Error("a read-only file was written")
		}
		if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o644); err == nil {
			t.Error("a file was created in a read-only folder")
		}
	})
	// Once the test is over both are writable again (t.TempDir can remove them).
	if err := os.WriteFile(file, []byte("new"), 0o644); err != nil {
		t.Errorf("after the test: %v", err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o644); err != nil {
		t.Errorf("after the test: %v", err)
	}
}
