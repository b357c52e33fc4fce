package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Reading and clearing the folder backend's locks, for the stack commands
// (stack ls, stack unlock) and the messages that name a holder.

// LockHolder returns the holder of the (project, stack) lock, nil when it
// is not locked.
func (f *Folder) LockHolder(_ context.Context, project, stack string) (*LockInfo, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	return readHolder(p.lock)
}

// ForceUnlock clears the (project, stack) lock whoever holds it (`runner
// stack unlock`). Clearing a lock that is not taken succeeds.
func (f *Folder) ForceUnlock(_ context.Context, project, stack string) error {
	p, err := f.paths(project, stack)
	if err != nil {
		return err
	}
	return clearLock(p.lock, "stack "+stack+" of project "+project)
}

// StackLockHolder returns the holder of the stack's own lock (LockStack),
// nil when it is not locked.
func (f *Folder) StackLockHolder(_ context.Context, stack string) (*LockInfo, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	return readHolder(f.stackLockPath(stack))
}

// ForceUnlockStack clears the stack's own lock whoever holds it (`runner
// stack unlock`). Clearing a lock that is not taken succeeds.
func (f *Folder) ForceUnlockStack(_ context.Context, stack string) error {
	if err := f.checkStack(stack); err != nil {
		return err
	}
	return clearLock(f.stackLockPath(stack), "stack "+stack)
}

// stackLockPath is the file of the stack's own lock.
func (f *Folder) stackLockPath(stack string) string {
	return filepath.Join(f.stackDir(stack), "lock.json")
}

// readHolder reads the holder recorded in the lock file path (nil when
// there is none).
func readHolder(path string) (*LockInfo, error) {
	data, err := readOptional(path)
	if err != nil || data == nil {
		return nil, err
	}
	h, err := DecodeLockBody(data)
	if err != nil {
		return nil, fmt.Errorf("reading the lock %s: %w", path, err)
	}
	judgeLease(&h, path)
	return &h, nil
}

// clearLock removes the lock file path (of what, for messages), durably.
func clearLock(path, what string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clearing the lock of %s: %w", what, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// LockedProjects lists, sorted, the projects of stack whose lock is taken
// (a project's lock may exist before its state does: a first up killed
// early leaves only the lock).
func (f *Folder) LockedProjects(_ context.Context, stack string) ([]string, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	return f.projectsLocked(stack)
}
