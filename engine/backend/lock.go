package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
	"time"
)

// LockedError is returned by Lock when another holder has the lock.
type LockedError struct {
	Project, Stack string
	Holder         LockInfo
	// Stale is set when the holder is a process of this host that no longer
	// runs: the lock was left behind and can be cleared with ForceUnlock.
	Stale bool
	// File is the lock file.
	File string
}

// Error names the holder and, for a stale lock, how to clear it.
func (e *LockedError) Error() string {
	cmd := e.Holder.Command
	if cmd == "" {
		cmd = "an unknown command"
	}
	msg := fmt.Sprintf("stack %s of project %s is locked by %s (pid %d on host %s, since %s)",
		e.Stack, e.Project, cmd, e.Holder.PID, e.Holder.Host, e.Holder.Started.Format(time.RFC3339))
	if e.Stale {
		msg += fmt.Sprintf("; that process no longer runs, so the lock is stale: if nothing else is deploying this stack, clear it with `runner stack unlock --project %s`", e.Project)
	}
	return msg
}

// CurrentLockInfo describes this process as a lock holder running command.
func CurrentLockInfo(command string) LockInfo {
	host, _ := os.Hostname()
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return LockInfo{PID: os.Getpid(), Host: host, User: name, Started: time.Now().UTC(), Command: command}
}

// fillHolder completes a holder with this process's pid, host, user and
// the current time where they are missing, so that a lock left behind can
// be recognized as stale.
func fillHolder(h LockInfo) LockInfo {
	me := CurrentLockInfo(h.Command)
	if h.PID == 0 {
		h.PID = me.PID
	}
	if h.Host == "" {
		h.Host = me.Host
	}
	if h.User == "" {
		h.User = me.User
	}
	if h.Started.IsZero() {
		h.Started = me.Started
	}
	return h
}

// folderLock is a held lock file.
type folderLock struct {
	path string
	data []byte // what this holder wrote, to recognize its own lock
}

// Lock takes the (project, stack) lock, failing at once with a
// *LockedError naming the holder when it is taken. The lock file appears
// complete or not at all (a hard link of a finished temporary file), so two
// processes cannot both win and nobody reads a half-written holder.
func (f *Folder) Lock(ctx context.Context, project, stack string, holder LockInfo) (Lock, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	holder = fillHolder(holder)
	data, err := json.Marshal(holder)
	if err != nil {
		return nil, fmt.Errorf("encoding the lock holder: %w", err)
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, fmt.Errorf("locking stack %s of project %s: %w", stack, project, err)
	}
	tmp, err := writeTemp(p.dir, "lock.json", data)
	if err != nil {
		return nil, fmt.Errorf("locking stack %s of project %s: %w", stack, project, err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, p.lock)
	if errors.Is(err, fs.ErrExist) {
		return nil, lockedError(p)
	}
	if err != nil {
		return nil, fmt.Errorf("locking stack %s of project %s: creating %s: %w", stack, project, p.lock, err)
	}
	if err := syncDir(p.dir); err != nil {
		return nil, err
	}
	return &folderLock{path: p.lock, data: data}, nil
}

// writeTemp writes data to a new fsynced temporary file in dir.
func writeTemp(dir, name string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// lockedError describes the holder of an existing lock file.
func lockedError(p paths) error {
	e := &LockedError{Project: p.project, Stack: p.stack, File: p.lock}
	data, err := os.ReadFile(p.lock)
	if err != nil || json.Unmarshal(data, &e.Holder) != nil {
		e.Holder.Command = "an unreadable holder (" + p.lock + ")"
		return e
	}
	host, _ := os.Hostname()
	e.Stale = e.Holder.Host == host && e.Holder.PID > 0 && !processAlive(e.Holder.PID)
	return e
}

// processAlive reports whether a process with this pid runs on this host.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Unlock releases the lock. It fails, leaving the file, when the lock file
// no longer is this holder's (it was cleared and taken by another).
func (l *folderLock) Unlock() error {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unlocking %s: the lock was already cleared", l.path)
	}
	if err != nil {
		return fmt.Errorf("unlocking %s: %w", l.path, err)
	}
	if !bytes.Equal(data, l.data) {
		return fmt.Errorf("unlocking %s: the lock now belongs to another holder; leaving it", l.path)
	}
	if err := os.Remove(l.path); err != nil {
		return fmt.Errorf("unlocking %s: %w", l.path, err)
	}
	return syncDir(filepath.Dir(l.path))
}

// LockHolder returns the holder of the (project, stack) lock, nil when it
// is not locked.
func (f *Folder) LockHolder(project, stack string) (*LockInfo, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	data, err := readOptional(p.lock)
	if err != nil || data == nil {
		return nil, err
	}
	var h LockInfo
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("reading the lock %s: %w", p.lock, err)
	}
	return &h, nil
}

// ForceUnlock clears the (project, stack) lock whoever holds it (`runner
// stack unlock`). Clearing a lock that is not taken succeeds.
func (f *Folder) ForceUnlock(project, stack string) error {
	p, err := f.paths(project, stack)
	if err != nil {
		return err
	}
	if err := os.Remove(p.lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clearing the lock of stack %s of project %s: %w", stack, project, err)
	}
	if err := syncDir(p.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
