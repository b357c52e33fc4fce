// Package backend stores state, journals, locks, history and tags for every
// (project, stack). The folder backend (file://<dir>) is the default.
package backend

import (
	"context"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Backend is where the engine keeps state. Implementations are safe for
// concurrent use by different (project, stack) pairs.
type Backend interface {
	// Load returns the (project, stack) snapshot with its secrets decrypted by
	// crypter, or nil and no error when the project was never deployed on the
	// stack. A pending journal left by a crash is folded in (Fold): its
	// unfinished steps appear as PendingOperations. A snapshot returned as
	// stored carries its Origin. A state that cannot be read or fails its
	// checks is an error naming where it is and the problem.
	Load(ctx context.Context, project, stack string, crypter resource.Crypter) (*state.Snapshot, error)
	// Lock takes the (project, stack) lock, failing at once with a
	// *LockedError when another holder has it.
	Lock(ctx context.Context, project, stack string, holder LockInfo) (Lock, error)
	// OpenJournal starts the journal of an operation that begins from base:
	// the journal's steps apply to base, and a crash folds them into it.
	// When base is not the stored snapshot (the value Load returned, by its
	// state.Snapshot Origin, or Commit stored), base is stored first.
	OpenJournal(ctx context.Context, project, stack string, base *state.Snapshot, crypter resource.Crypter) (Journal, error)
}

// StackLocker is a Backend that can also lock a whole stack, for
// operations across its projects: LockStack fails at once with a
// *LockedError (StackWide) when another holder has the stack.
type StackLocker interface {
	LockStack(ctx context.Context, stack string, holder LockInfo) (Lock, error)
}

var _ StackLocker = (*Folder)(nil)

// LockInfo names a lock's holder: a process (PID, ProcessStart) on a host.
// Only a holder on this host can be judged to have gone (Stale).
type LockInfo struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// ProcessStart is when the holder process started, as its host's
	// kernel counts it (on Linux, clock ticks since boot), so that another
	// process that got the same pid later is not taken for the holder; ""
	// when unknown.
	ProcessStart string `json:"processStart,omitempty"`
	// PIDNamespace names the holder's process-id namespace (on Linux, the
	// target of /proc/self/ns/pid): containers that share a hostname and a
	// state folder count pids apart, so a pid is judged only in its own
	// namespace; "" when unknown.
	PIDNamespace string    `json:"pidNamespace,omitempty"`
	User         string    `json:"user"`
	Started      time.Time `json:"started"`
	Command      string    `json:"command"`
}

// Lock is a held (project, stack) lock, or a stack's own lock.
type Lock interface {
	// Unlock releases the lock.
	Unlock() error
	// Previous returns the dead holder (LockInfo.Stale) this lock was taken
	// over from, whose run the backend recorded as Interrupted in the
	// stack's history; nil when the lock was free.
	Previous() *LockInfo
}

// Journal records an operation's steps durably as they happen.
type Journal interface {
	// Begin records that a step is about to call its plugin; it returns once
	// the entry is on disk (entries of concurrent steps share one fsync).
	Begin(ctx context.Context, e Entry) error
	// End records a step's outcome; it returns once the entry is on disk.
	End(ctx context.Context, e Entry) error
	// Commit writes final as the new snapshot (atomically, the previous one
	// kept as history), records rec in the stack's history and retires the
	// journal.
	Commit(ctx context.Context, final *state.Snapshot, rec HistoryRecord) error
}

// EntryKind says whether a journal entry opens or closes a step.
type EntryKind string

// The journal entry kinds.
const (
	EntryBegin   EntryKind = "begin"
	EntrySuccess EntryKind = "success"
	EntryFailure EntryKind = "failure"
)

// Entry is one journal record. Seq pairs a step's begin with its end. Old is
// the state before the step (nil for a create); New the state after it (nil
// for a delete; on a begin entry, the resource as it is about to be made).
type Entry struct {
	Seq  int64
	Kind EntryKind
	Op   string // create, update, delete, replace, refresh, ...
	Old  *state.Resource
	New  *state.Resource
}

// HistoryRecord is one operation in a stack's history.
type HistoryRecord struct {
	Kind      string         `json:"kind"` // update, preview, refresh, destroy, import
	Result    string         `json:"result"`
	StartTime time.Time      `json:"startTime"`
	EndTime   time.Time      `json:"endTime"`
	Changes   map[string]int `json:"resourceChanges,omitempty"`
	User      string         `json:"user,omitempty"`
	Host      string         `json:"host,omitempty"`
	Message   string         `json:"message,omitempty"`
}
