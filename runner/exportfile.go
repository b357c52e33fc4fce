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
	if err := checkWritable(path, "the export", "--file", "export.json"); err != nil {
		return err
	}
	if err := s.refuseWorkspaceFile(path, StackConfigPath(s.Workspace, stack), "the export", "--file"); err != nil {
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

// checkWritable explains, before any work, why what ("the export", "the
// plan") cannot be written to path, given by flag; example is a file name
// to suggest in a folder.
func checkWritable(path, what, flag, example string) error {
	fail := func(why string) error { return fmt.Errorf("cannot write %s to %s: %s", what, path, why) }
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(fmt.Sprintf("the folder %s does not exist; create it first, or give another %s", dir, flag))
	case err != nil:
		return fail(err.Error())
	case !st.IsDir():
		return fail(fmt.Sprintf("%s is not a folder", dir))
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fail("it is a folder; give a file name, such as " + filepath.Join(path, example))
		}
		if !st.Mode().IsRegular() {
			return fail(fmt.Sprintf("it is not a regular file (a device, a pipe or a socket), which %s would replace; give the name of a new or a regular file", what))
		}
		if syscall.Access(path, 2 /* W_OK */) != nil {
			return fail("the file is read-only; make it writable or give another " + flag)
		}
	}
	if syscall.Access(dir, 2|1 /* W_OK|X_OK */) != nil {
		return fail(fmt.Sprintf("the folder %s is not writable; give a %s in a folder you can write to", dir, flag))
	}
	return nil
}
