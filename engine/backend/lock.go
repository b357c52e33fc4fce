package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// LockedError is returned by Lock and LockStack when another holder has
// the lock.
type LockedError struct {
	Project, Stack string
	Holder         LockInfo
	// StackWide is set for the stack's own lock (LockStack), which an
	// operation across the stack's projects holds; Project is then empty.
	StackWide bool
	// Stale is set when the holder is a process of this host that no longer
	// runs: the lock was left behind and can be cleared with ForceUnlock
	// (ForceUnlockStack).
	Stale bool
	// File is the lock file.
	File string
	// Pulumi is set for a lock file the Pulumi CLI wrote (no lease, no
	// liveness runner can judge): it is cleared by removing File.
	Pulumi bool
}

// Error names the holder and, for a stale lock, how to clear it.
func (e *LockedError) Error() string {
	what, unlock := fmt.Sprintf("stack %s of project %s", e.Stack, e.Project), "runner stack unlock --project "+e.Project
	if e.StackWide {
		what, unlock = fmt.Sprintf("stack %s", e.Stack), "runner stack unlock"
	}
	// A holder whose file says nothing of it (unreadable, or not a lock any
	// program wrote) has no pid, host or time to name, nor an end to wait for.
	known := e.Holder.PID != 0 || e.Holder.Host != ""
	msg := fmt.Sprintf("%s is locked by %s", what, e.Holder.Describe())
	switch {
	case e.Stale && e.Holder.Expired:
		msg += fmt.Sprintf("; its last heartbeat was %s ago (lease %s), so the lock is stale: if nothing else is deploying this stack, clear it with `%s`",
			e.Holder.SinceRenewal.Round(time.Second), e.Holder.Lease(), unlock)
	case e.Stale:
		msg += fmt.Sprintf("; that process no longer runs, so the lock is stale: if nothing else is deploying this stack, clear it with `%s`", unlock)
	}
	if e.Stale {
		if e.StackWide {
			msg += " (it clears every lock of the stack whose holder no longer runs)"
		}
	} else if known {
		msg += "; wait for it to finish, then run again"
	}
	if e.Pulumi && !e.Stale {
		who := "no Pulumi CLI"
		if e.Holder.Host != "" {
			who += " on host " + e.Holder.Host
		}
		msg += fmt.Sprintf(" (if %s works on this stack any more, clear its lock file %s with `runner stack unlock --project %s --force`)", who, e.File, e.Project)
	}
	return msg
}

// folderLock is a held lock file, its lease renewed by beat.
type folderLock struct {
	f        *Folder
	path     string
	data     []byte // what this holder wrote, to recognize its own lock
	beat     *Heartbeat
	previous *LockInfo // the dead holder taken over, nil when the lock was free
}

// Previous returns the dead holder this lock was taken over from, nil when
// the lock was free.
func (l *folderLock) Previous() *LockInfo { return l.previous }

// Lock takes the (project, stack) lock, failing at once with a
// *LockedError naming the holder when it is taken. The lock file appears
// complete or not at all (a hard link of a finished temporary file), so two
// processes cannot both win and nobody reads a half-written holder. Once
// the lock is held, temporary files that killed writes left in the
// project's folders are removed.
func (f *Folder) Lock(ctx context.Context, project, stack string, holder LockInfo) (Lock, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	lockDir := filepath.Dir(p.lock)
	l, err := f.takeLock(ctx, lockDir, p.lock, holder, func() error { return lockedError(p) })
	var locked *LockedError
	if errors.As(err, &locked) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("locking stack %s of project %s: %w", stack, project, err)
	}
	if err := pulumiLocks(p); err != nil {
		return nil, errors.Join(err, l.Unlock())
	}
	// Every other write in these folders happens under this lock, except
	// the temporary files of processes trying to take it, and those of the
	// project's other stacks (whose checkpoints share a folder).
	removeTemps(p.dir, func(string, time.Duration) bool { return true })
	removeTemps(p.history, func(string, time.Duration) bool { return true })
	for _, dir := range []string{lockDir, filepath.Dir(p.snapshot), f.historyDir(p)} {
		removeTemps(dir, func(_ string, age time.Duration) bool { return age > staleTempAge })
	}
	return f.recordTakeover(l, p, holder)
}

// pulumiLocks refuses a project whose Pulumi lock folder holds a lock file
// of the Pulumi CLI besides runner's (which Pulumi in turn sees as a lock:
// it writes its own file, then refuses when it finds another).
func pulumiLocks(p paths) error {
	dir := filepath.Dir(p.lock)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("locking stack %s of project %s: listing Pulumi's locks: %w", p.stack, p.project, err)
	}
	for _, e := range entries {
		if e.IsDir() || !IsPulumiLockName(e.Name()) {
			continue // runner's own, a temporary file, or gocloud's .attrs beside a lock
		}
		e := &LockedError{Project: p.project, Stack: p.stack, File: filepath.Join(dir, e.Name()), Pulumi: true}
		describeHolder(e) // stale only when its holder is a process of this host that no longer runs
		return e
	}
	return nil
}

// recordTakeover records the run of the dead holder l took its lock over
// from (if any) as interrupted in the history of p's stack (p's project;
// none for the stack's own lock). A failed record lets go of the lock.
func (f *Folder) recordTakeover(l *folderLock, p paths, holder LockInfo) (Lock, error) {
	if l.previous == nil {
		return l, nil
	}
	if err := f.appendHistory(p, InterruptedRecord(*l.previous, holder, time.Now())); err != nil {
		return nil, errors.Join(err, l.Unlock())
	}
	return l, nil
}

// LockStack takes the lock of the whole stack (stacks/<stack>/lock.json),
// which operations across the stack's projects (up, refresh, destroy) hold
// besides each project's own lock, so that two of them never run at once.
// It fails at once with a *LockedError (StackWide) naming the holder.
func (f *Folder) LockStack(ctx context.Context, stack string, holder LockInfo) (Lock, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	dir := f.stackDir(stack)
	path := f.stackLockPath(stack)
	l, err := f.takeLock(ctx, dir, path, holder, func() error { return stackLockedError(stack, path) })
	var locked *LockedError
	if errors.As(err, &locked) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("locking stack %s: %w", stack, err)
	}
	// The stack's tags are written without this lock: only old temporary
	// files are a killed writer's.
	removeTemps(dir, func(_ string, age time.Duration) bool { return age > staleTempAge })
	return f.recordTakeover(l, paths{stack: stack}, holder)
}

// takeLock creates the lock file path in dir holding holder, taking it
// over when its holder is dead (takeOverDead), or returns locked() when it
// is held, and starts renewing its lease.
func (f *Folder) takeLock(ctx context.Context, dir, path string, holder LockInfo, locked func() error) (*folderLock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	holder = fillHolder(holder)
	lease := f.leaseFor()
	holder.LockID, holder.LeaseSeconds = newLockID(), lease.Seconds()
	data, err := EncodeLockBody(holder)
	if err != nil {
		return nil, fmt.Errorf("encoding the lock holder: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := writeTemp(dir, filepath.Base(path), data)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	l := &folderLock{f: f, path: path, data: data}
	for try := 0; ; try++ {
		err = os.Link(tmp, path)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("creating %s: %w", path, err)
		}
		l.previous, err = takeOverDead(path, tmp)
		if errors.Is(err, errRetryLock) && try < 5 {
			continue
		}
		if err != nil && !errors.Is(err, errRetryLock) {
			return nil, err
		}
		if l.previous == nil {
			return nil, locked()
		}
		break
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	l.beat = StartHeartbeat(lease, l.renew)
	f.held.Store(path, l)
	return l, nil
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
	describeHolder(e)
	return e
}

// stackLockedError describes the holder of an existing stack lock file.
func stackLockedError(stack, path string) error {
	e := &LockedError{Stack: stack, StackWide: true, File: path}
	describeHolder(e)
	return e
}

// describeHolder reads e.File into e.Holder and tells whether it is stale.
func describeHolder(e *LockedError) {
	data, err := boundedfile.ReadFile(e.File, lockKind)
	if err == nil {
		e.Holder, err = DecodeLockBody(data)
	}
	if err != nil {
		e.Holder.Command = "an unreadable holder (" + e.File + ")"
		return
	}
	judgeLease(&e.Holder, e.File)
	e.Stale = e.Holder.Stale()
}

// Describe names the holder for messages: its command, and its pid, host
// and start when the lock records them.
func (h LockInfo) Describe() string {
	cmd := h.Command
	if cmd == "" {
		cmd = "an unknown command"
	}
	if h.PID == 0 && h.Host == "" {
		return cmd
	}
	return fmt.Sprintf("%s (pid %d on host %s, since %s)", cmd, h.PID, h.Host, h.Started.Format(time.RFC3339))
}

// Stale reports whether the holder stopped: it is Dead, or its lease
// expired (Expired, judged by the backend). Only such a lock may be
// cleared without --force.
func (h LockInfo) Stale() bool {
	return h.Expired || h.Dead()
}

// Dead reports whether the holder is a process of this host that provably
// no longer runs: its pid is gone, or now belongs to a process that started
// at another time than the holder. Such a lock was left by a killed run
// and is taken over by the next operation (see InterruptedRecord). A
// holder of another boot (an earlier one of this machine, or another
// machine of the same hostname) is dead once its lease expired. A
// holder on another host, or in another pid namespace of this host
// (another container), is never judged from here; nor is one that
// recorded no namespace (the Pulumi CLI's lock files, runner's older ones)
// unless this process sees every namespace's pids (judgedHere).
func (h LockInfo) Dead() bool {
	host, _ := os.Hostname()
	if h.Host != host || h.PID <= 0 || !h.judgedHere() {
		return false
	}
	if h.BootID != "" && h.BootID != bootID() {
		// An earlier boot of this machine, or another machine of this
		// hostname: its pid names nothing here, its lease tells.
		return h.Expired
	}
	if !processAlive(h.PID) {
		return h.PIDNamespace != "" || !pidInNestedNamespace(h.PID)
	}
	now := processStart(h.PID)
	return h.ProcessStart != "" && now != "" && now != h.ProcessStart
}

// Unlock releases the lock. It fails, leaving the file, when the lock file
// no longer is this holder's (it was cleared and taken by another).
func (l *folderLock) Unlock() error {
	l.beat.Stop()
	l.f.held.CompareAndDelete(l.path, l)
	data, err := boundedfile.ReadFile(l.path, lockKind)
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
