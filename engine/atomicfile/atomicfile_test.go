package atomicfile

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name     string
		existing []byte
		perm     os.FileMode
	}{
		{"new file in a new folder", nil, 0o600},
		{"replaces an existing file", []byte("old content"), 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "f.json")
			if tt.existing != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, tt.existing, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := Write(path, []byte("new"), tt.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != "new" {
				t.Fatalf("content %q, %v; want \"new\"", got, err)
			}
			st, _ := os.Stat(path)
			if st.Mode().Perm() != tt.perm {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tt.perm)
			}
			if names := list(t, filepath.Dir(path)); len(names) != 1 {
				t.Errorf("folder holds %v, want only f.json (no temporary file left)", names)
			}
		})
	}
}

func TestWriteIntoAFileFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(blocker, "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("writing under a file succeeded")
	}
}

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.json", ".a.json.tmp-1", ".a.json.tmp-2", ".b.json.tmp-3", "c.tmp-4"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".a.json.tmp-1"), old, old); err != nil {
		t.Fatal(err)
	}
	Sweep(dir, func(_ string, age time.Duration) bool { return age > time.Minute })
	if got, want := list(t, dir), []string{".a.json.tmp-2", ".b.json.tmp-3", "a.json", "c.tmp-4"}; !equal(got, want) {
		t.Fatalf("after the sweep of stale files: %v, want %v", got, want)
	}
	SweepFor(filepath.Join(dir, "a.json"))
	if got, want := list(t, dir), []string{".b.json.tmp-3", "a.json", "c.tmp-4"}; !equal(got, want) {
		t.Fatalf("after the sweep of a.json's files: %v, want %v", got, want)
	}
}

func list(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
