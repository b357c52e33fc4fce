// Package testenv tells tests what this machine lacks, and decides once
// what a test that cannot run here does: it skips, saying why, on a
// developer's machine, and fails under CI (CI set), where everything the
// suite needs is installed and a skip would hide a check. It also finds
// the module root and the shared reference files beside the repository,
// and makes files read-only in a way that holds for root too.
package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// CI reports whether the tests run under continuous integration: the
// CI environment variable is set to anything but a false value.
func CI() bool {
	v, ok := os.LookupEnv("CI")
	if !ok || v == "" {
		return false
	}
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return true
}

// Unavailable ends tb because something it needs is not here (why says
// what, and how to provide it): a skip on a developer's machine, a failure
// under CI.
func Unavailable(tb testing.TB, why string) {
	tb.Helper()
	if CI() {
		tb.Fatalf("cannot run under CI: %s", why)
	}
	tb.Skipf("skipping: %s (under CI this fails)", why)
}

// ModuleRoot returns the folder of the go.mod above the test's working
// directory (the package folder), failing tb when there is none.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("the test's working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("no go.mod above %s", dir)
		}
		dir = parent
	}
}

// Shared returns the path of name in the project's shared reference folder
// (../shared beside the repository), or ends tb with Unavailable when it
// is absent (a fresh clone has none; CI lays one).
func Shared(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(ModuleRoot(tb), "..", "shared", name)
	if _, err := os.Stat(p); err != nil {
		Unavailable(tb, "the shared reference copy "+p+" is not here ("+err.Error()+"); it is laid beside the repository")
	}
	return p
}
