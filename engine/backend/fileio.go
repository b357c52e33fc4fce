package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// writeFileAtomic replaces path with data: a temporary file in the same
// folder is written and fsynced, renamed over path, and the folder fsynced.
// A reader sees either the old or the new content, never a mix.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the folder %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir fsyncs a folder so that renames and removals in it are durable.
func syncDir(dir string) error {
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

// readOptional reads path; a missing file gives nil and no error.
func readOptional(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// hashOf returns the hex SHA-256 of data, or "" for nil (no file).
func hashOf(data []byte) string {
	if data == nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// appendSynced appends data to path (creating it) and fsyncs it.
func appendSynced(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the folder of %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	return f.Close()
}

// staleTempAge is the age past which a temporary file that a writer not
// excluded by a lock may still be using counts as left by a killed write.
const staleTempAge = 10 * time.Second

// isTemp reports whether name is a temporary file of writeFileAtomic or
// writeTemp (".<name>.tmp-<random>").
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// removeTemps removes the temporary files in dir that killed writes left
// behind, those for which stale (given the name and the age) is true.
// Failures are ignored: the files are only litter.
func removeTemps(dir string, stale func(name string, age time.Duration) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		if e.IsDir() || !isTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !stale(e.Name(), now.Sub(info.ModTime())) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}
