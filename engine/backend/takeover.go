package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
)

// A lock whose holder is a process of this host that no longer runs
// (LockInfo.Dead: its pid is gone, or belongs to a process started at
// another time) was left by a killed run. Every backend's Lock and
// LockStack take such a lock over instead of refusing: the returned Lock's
// Previous names the dead holder, and the backend records the dead run in
// the stack's history as Interrupted (InterruptedRecord). A holder on
// another host or in another pid namespace, or one that still runs, is
// never taken over: only `runner stack unlock` (ForceUnlock) clears it.

// Interrupted is the Result of a history record of a run that was killed
// (or lost its machine) before it finished, recorded when the next
// operation takes its lock over.
const Interrupted = "interrupted"

// InterruptedRecord is the history record of the dead holder's run, which
// by (the new holder) took over at the time now.
func InterruptedRecord(dead, by LockInfo, now time.Time) HistoryRecord {
	return HistoryRecord{
		Kind: operationKind(dead.Command), Result: Interrupted,
		StartTime: dead.Started.UTC(), EndTime: now.UTC(), User: dead.User, Host: dead.Host,
		Message: fmt.Sprintf("%s (pid %d) stopped before it finished; %s took its lock over", commandName(dead.Command), dead.PID, commandName(by.Command)),
	}
}

// TakeoverWarning is the warning an operation shows when it took over the
// lock of what (e.g. "stack dev", "stack dev of project network") from the
// dead holder.
func TakeoverWarning(what string, dead LockInfo) string {
	return fmt.Sprintf("took over the lock of %s from %s (pid %d on host %s, since %s), which no longer runs: that run was interrupted and is recorded so in `runner stack history`; what it left unfinished is resolved now",
		what, commandName(dead.Command), dead.PID, dead.Host, dead.Started.Format(time.RFC3339))
}

// operationKind names the history kind of a holder's command ("runner up"
// is an update, as the engine records it).
func operationKind(command string) string {
	op := strings.TrimPrefix(command, "runner ")
	switch op {
	case "up":
		return "update"
	case "":
		return "unknown"
	}
	return op
}

func commandName(command string) string {
	if command == "" {
		return "an unknown command"
	}
	return command
}

// takeOverDead replaces the lock file path, when its holder is dead, by
// tmp (the new holder's finished temporary file, renamed in place). It
// returns the dead holder it replaced; nil and no error when its holder
// is not dead; errRetryLock when the lock file went or changed meanwhile.
// Processes taking over the same lock are serialized by a flock on the
// lock file itself, checked to still be the file at path once held; the
// dead holder's file is replaced in one rename, so a process taking the
// lock with a plain link finds a lock file all along.
func takeOverDead(path, tmp string) (*LockInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errRetryLock
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lock %s: %w", path, err)
	}
	defer f.Close()
	if err := flock(f); err != nil {
		return nil, fmt.Errorf("reading the lock %s: %w", path, err)
	}
	// Closing f releases the flock.
	held, err := f.Stat()
	if err != nil {
		return nil, err
	}
	now, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !os.SameFile(held, now) {
		return nil, errRetryLock
	}
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLockFile))
	if err != nil {
		return nil, fmt.Errorf("reading the lock %s: %w", path, err)
	}
	var dead LockInfo
	if json.Unmarshal(data, &dead) != nil {
		return nil, nil
	}
	judgeLease(&dead, path)
	if !dead.Dead() {
		return nil, nil
	}
	// One rename: the lock file is never absent, so no plain taker comes
	// between.
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("taking over the lock %s: %w", path, err)
	}
	return &dead, nil
}

// errRetryLock says the lock file changed while it was being taken over.
var errRetryLock = errors.New("the lock changed meanwhile")

// maxLockFile bounds what is read of a lock file.
const maxLockFile = 64 << 10

// flock takes an exclusive flock on f, waiting for it (a takeover holds it
// only for a few file operations).
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
