package config

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/runnerhq/runner/engine/atomicfile"
)

// writeAtomic replaces path with data (see atomicfile.Write), so that a
// crash leaves either the old or the new file. The mode of an existing
// file is kept.
//
// A symlink is written through: its target is replaced and the link stays
// (a config kept elsewhere and linked into the workspace). A link that
// loops, or one whose target's folder is missing, is an error naming it.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	target, err := linkTarget(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.Write(target, data, mode)
}

// linkTarget returns the file a chain of symlinks at path ends at (path
// itself when it is no link, or does not exist), the target allowed not to
// exist yet.
func linkTarget(path string) (string, error) {
	orig := path
	for range 40 {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("reading the symlink %s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("writing %s: it is a symlink loop (more than 40 links); point it at a file", orig)
}
