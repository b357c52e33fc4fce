package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic(r) }
func (r *recorder) Fatal(...any)          { r.failed = true; panic(r) }
func (r *recorder) Name() string          { return "TestX" }
func check(r *recorder, name string, b []byte) {
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
	}()
	Check(r, name, b)
}

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("testdata", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "sub", "a.golden"), []byte("want\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, got string
		update, fails   bool
	}{
		{"equal", "sub/a.golden", "want\n", false, false},
		{"different", "sub/a.golden", "other\n", false, true},
		{"missing", "none.golden", "x", false, true},
		{"update writes", "new/b.golden", "fresh\n", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			*update = tt.update
			defer func() { *update = false }()
			r := &recorder{TB: t}
			check(r, tt.file, []byte(tt.got))
			if r.failed != tt.fails {
				t.Fatalf("failed = %v, want %v", r.failed, tt.fails)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "new", "b.golden")); err != nil || string(b) != "fresh\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
}
