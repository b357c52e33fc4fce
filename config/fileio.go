package config

import (
	"os"

	"github.com/runnerhq/runner/engine/atomicfile"
)

// writeAtomic replaces path with data (see atomicfile.Write), so that a
// crash leaves either the old or the new file. The mode of an existing
// file is kept.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.Write(path, data, mode)
}
