package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/runnerhq/runner/engine/atomicfile"
	"github.com/runnerhq/runner/internal/boundedfile"
)

// writeFileAtomic replaces path with data (see atomicfile.Write): a reader
// sees either the old or the new content, never a mix.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o600)
}

// syncDir fsyncs a folder so that renames and removals in it are durable.
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }

// lockKind bounds the read of a lock file: a holder's few fields.
var lockKind = boundedfile.Kind{Name: "the lock file", Limit: 64 << 10}

// readOptional reads path; a missing file gives nil and no error.
func readOptional(path string) ([]byte, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.State)
	if errors.Is(err, fs.ErrNotExist) {
		// A link to a file that is gone is not "no state": taking it so
		// would create every resource again.
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, &boundedfile.RefusedError{Path: path, Kind: boundedfile.State, Mode: fs.ModeSymlink}
		}
		return nil, nil
	}
	if boundedfile.IsRefused(err) {
		return nil, err
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
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
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

// removeTemps removes the temporary files in dir that killed writes left
// behind, those for which stale (given the name and the age) is true.
func removeTemps(dir string, stale func(name string, age time.Duration) bool) {
	atomicfile.Sweep(dir, stale)
}
