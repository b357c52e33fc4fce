package boundedfile

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 2049), 0o600); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(dir, "exact")
	if err := os.WriteFile(exact, bytes.Repeat([]byte("y"), 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	kind := Kind{"the test file", 2048}
	for _, tc := range []struct {
		name, path, want string
		wantLen          int
	}{
		{"small", small, "", 5},
		{"exactly the limit", exact, "", 2048},
		{"a symlink to a regular file", link, "", 5},
		{"over the limit", big, "larger than 2 KiB, the most runner reads of the test file", 0},
		{"a named pipe", pipe, "it is a named pipe, not a regular file", 0},
		{"a folder", dir, "it is a folder, not a regular file", 0},
		{"a character device", "/dev/zero", "it is a character device, not a regular file", 0},
		{"missing", filepath.Join(dir, "missing"), "no such file", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			data, err := Read(ctx, tc.path, kind)
			if tc.want == "" {
				if err != nil || len(data) != tc.wantLen {
					t.Fatalf("Read = %d bytes, %v; want %d bytes", len(data), err, tc.wantLen)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read = %v; want an error saying %q", err, tc.want)
			}
			if strings.Contains(tc.want, "no such") != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) is wrong", err)
			}
		})
	}
}

// TestReadProcFileOverTheLimit: a file that reports no size (as those of
// /proc do) is cut at the limit and refused.
func TestReadProcFileOverTheLimit(t *testing.T) {
	_, err := Read(context.Background(), "/proc/self/maps", Kind{"the maps", 16})
	if !IsRefused(err) {
		t.Fatalf("Read of /proc/self/maps over 16 bytes = %v, want a refusal", err)
	}
}

func TestReadStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(ctx, path, State); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with an ended context = %v, want context.Canceled", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1 GiB", 512 << 20: "512 MiB", 64 << 10: "64 KiB", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
