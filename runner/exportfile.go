package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/runnerhq/runner/engine/atomicfile"
)

// ExportFile writes the export of project (see Export) to path, mode 0600
// (it may hold secrets in plain text with show), atomically: a temporary
// file beside it, fsynced, renamed over it. Every error names path and
// what to do; nothing is left behind on failure.
func (s *Stacks) ExportFile(ctx context.Context, stack, project string, show bool, path string) error {
	if err := checkWritable(path); err != nil {
		return err
	}
	data, err := s.Export(ctx, stack, project, show)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("writing the export of project %s to %s: %w", project, path, err)
	}
	return nil
}

// checkWritable explains, before any work, why path cannot be written.
func checkWritable(path string) error {
	fail := func(why string) error { return fmt.Errorf("cannot write the export to %s: %s", path, why) }
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(fmt.Sprintf("the folder %s does not exist; create it first, or give another --file", dir))
	case err != nil:
		return fail(err.Error())
	case !st.IsDir():
		return fail(fmt.Sprintf("%s is not a folder", dir))
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fail("it is a folder; give a file name, such as " + filepath.Join(path, "export.json"))
		}
		if !st.Mode().IsRegular() {
			return fail("it is not a regular file (a device, a pipe or a socket), which the export would replace; give the name of a new or a regular file")
		}
		if syscall.Access(path, 2 /* W_OK */) != nil {
			return fail("the file is read-only; make it writable or give another --file")
		}
	}
	if syscall.Access(dir, 2|1 /* W_OK|X_OK */) != nil {
		return fail(fmt.Sprintf("the folder %s is not writable; give a --file in a folder you can write to", dir))
	}
	return nil
}
