// Package atomicfile replaces files so that a crash leaves either the old
// or the new content, never a part, and sweeps the temporary files that
// killed writes leave behind.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempInfix sits between a file's name and the random suffix of its
// temporary files: ".<name>.tmp-<random>".
const tempInfix = ".tmp-"

// Write replaces path with data, its permissions perm: a temporary file in
// the same folder (created with the folder when missing) is written and
// fsynced, renamed over path, and the folder fsynced so that the rename
// survives a crash.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the folder %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a folder so that the renames and removals in it are
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing the folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing the folder %s: %w", dir, err)
	}
	return nil
}

// IsTemp reports whether name is the name of a temporary file of Write
// (".<name>.tmp-<random>").
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempInfix)
}

// Sweep removes the temporary files in dir for which stale (given the name
// and the age) is true. Failures are ignored: the files are only litter.
func Sweep(dir string, stale func(name string, age time.Duration) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		if e.IsDir() || !IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !stale(e.Name(), now.Sub(info.ModTime())) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// SweepFor removes every temporary file of path, whatever its age: for a
// caller that holds path's lock, so that no other write is using one.
func SweepFor(path string) {
	prefix := "." + filepath.Base(path) + tempInfix
	Sweep(filepath.Dir(path), func(name string, _ time.Duration) bool { return strings.HasPrefix(name, prefix) })
}
