package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/runnerhq/runner/engine/atomicfile"
)

// LockTimeout bounds how long a command waits for another runner command
// that holds a config file's lock.
var LockTimeout = time.Minute

// LockPath returns the lock file of a config file: a hidden sibling, since
// the file itself is replaced by every write.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// withLock runs fn while holding an exclusive lock (flock) on path's lock
// file, so that a read-modify-write of path by another runner process
// waits for this one to finish.
func withLock(path string, fn func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the folder %s: %w", dir, err)
	}
	lp := LockPath(path)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening the lock file %s of %s: %w", lp, path, err)
	}
	defer f.Close()
	if err := flockWait(f, path); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it too
	// Every write of path holds its lock: no other writer is using a
	// temporary file of it now.
	atomicfile.SweepFor(path)
	return fn()
}

// flockWait takes an exclusive flock on f, waiting up to LockTimeout. An
// interrupt (Ctrl-C) or SIGTERM during the wait ends it with an error that
// wraps context.Canceled (exit 130): no caller of the config's writes holds
// a context, and a wait of up to a minute must not ignore the user.
func flockWait(f *os.File, path string) error {
	deadline := time.Now().Add(LockTimeout)
	wait := time.Millisecond
	var interrupted chan os.Signal
	defer func() {
		if interrupted != nil {
			signal.Stop(interrupted)
		}
	}()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("locking %s (lock file %s): %w", path, f.Name(), err)
		case time.Now().After(deadline):
			return fmt.Errorf("another runner command has been changing %s for over %s (it holds %s); wait for it to finish and run this command again", path, LockTimeout, f.Name())
		}
		if interrupted == nil {
			interrupted = make(chan os.Signal, 1)
			signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
		}
		select {
		case <-interrupted:
			return fmt.Errorf("waiting for another runner command to finish changing %s: %w", path, context.Canceled)
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// UpdateStack changes the stack config at path: it takes the file's lock,
// reads the file as it is now, lets edit change it, and writes it
// atomically if it changed, before letting go of the lock. So concurrent
// updates by several runner processes all land. A file that does not parse
// is refused and left unchanged. It returns the config as written (or as
// read, when edit changed nothing).
func UpdateStack(path string, edit func(*Stack) error) (*Stack, error) {
	return update(path, LoadStack, edit)
}

// UpdateEnv changes the environment file at path as UpdateStack changes a
// stack config: under the file's lock, from the file as it is now, written
// atomically when edit changed it.
func UpdateEnv(path string, edit func(*EnvFile) error) (*EnvFile, error) {
	return update(path, LoadEnv, edit)
}

// lockedFile is a file that update reads, edits and writes back.
type lockedFile interface {
	Changed() bool
	save() error
}

// update holds path's lock while it loads the file, lets edit change it and
// writes it back atomically when it changed.
func update[F lockedFile](path string, load func(string) (F, error), edit func(F) error) (F, error) {
	var out F
	err := withLock(path, func() error {
		f, err := load(path)
		if err != nil {
			return err
		}
		if err := edit(f); err != nil {
			return err
		}
		if f.Changed() {
			if err := f.save(); err != nil {
				return err
			}
		}
		out = f
		return nil
	})
	return out, err
}

// RemoveStack deletes the stack config at path under its lock, so that no
// update is in the middle of rewriting it. A missing file is not an error.
func RemoveStack(path string) error {
	return withLock(path, func() error {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", path, err)
		}
		return nil
	})
}

// MoveStack moves the stack config at path to dest (a rename, so both must
// be on one file system: the error is then syscall.EXDEV), under path's
// lock, so that no update is in the middle of rewriting it, and durably.
func MoveStack(path, dest string) error {
	return withLock(path, func() error {
		if err := os.Rename(path, dest); err != nil {
			return err
		}
		if err := atomicfile.SyncDir(filepath.Dir(dest)); err != nil {
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(path))
	})
}
