package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var opened string
	reg := Registry{
		"file": OpenFileURL,
		"memory": func(_ context.Context, url string) (Store, error) {
			opened = url
			return Open(dir)
		},
	}
	tests := []struct {
		url, want, err string
	}{
		{"file://" + dir, dir, ""},
		{dir, dir, ""}, // no scheme: a folder
		{"memory://x", "memory://x", ""},
		{"s3://bucket", "", "no backend serves the scheme s3://; the known schemes are file://, memory://"},
		{"postgres://db/runner", "", "the known schemes are file://, memory://"},
	}
	for _, tt := range tests {
		opened = ""
		b, err := reg.Open(ctx, tt.url)
		if tt.err != "" {
			var unknown *UnknownSchemeError
			if !errors.As(err, &unknown) || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), tt.url) {
				t.Errorf("Open(%q) = %v, want an *UnknownSchemeError saying %q", tt.url, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", tt.url, err)
			continue
		}
		if got := b.(*Folder).Root; opened == "" && got != tt.want {
			t.Errorf("Open(%q) opened %s, want %s", tt.url, got, tt.want)
		}
		if opened != "" && opened != tt.want {
			t.Errorf("Open(%q) passed %q to its opener", tt.url, opened)
		}
	}
}

// TestOpenWritesNothing: opening and reading a backend whose folder does
// not exist leaves no folder behind; the first write creates it.
func TestOpenWritesNothing(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "state")
	f, err := Open("file://" + root)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := f.Projects(ctx, "dev"); err != nil || len(ps) != 0 {
		t.Fatalf("Projects = %v, %v", ps, err)
	}
	if ss, err := f.StackSecrets(ctx, "dev"); err != nil || len(ss) != 0 {
		t.Fatalf("StackSecrets = %v, %v", ss, err)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading created %s (%v)", root, err)
	}
	if err := f.SetTag(ctx, "dev", "owner", "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the first write did not create the folder: %v", err)
	}
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Fatalf("Open of a file = %v", err)
	}
}
