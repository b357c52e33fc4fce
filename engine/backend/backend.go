// Package backend stores state, journals, locks, history and tags for every
// (project, stack). The folder backend (file://<dir>) is the default.
package backend

import (
	"context"
	"errors"
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
	PIDNamespace string `json:"pidNamespace,omitempty"`
	// BootID names the boot of the holder's kernel (on Linux,
	// /proc/sys/kernel/random/boot_id): machines of the same hostname (VMs
	// cloned from one image) count pids apart, so a pid is judged only on
	// the boot that recorded it; "" when unknown.
	BootID  string    `json:"bootID,omitempty"`
	User    string    `json:"user"`
	Started time.Time `json:"started"`
	Command string    `json:"command"`
	// LockID names one taking of a lock (set by the backend), so that a
	// holder recognizes its own lock and no other.
	LockID string `json:"lockID,omitempty"`
	// LeaseSeconds is the lease the holder keeps renewing (0: none, a lock
	// that never expires, as written before leases).
	LeaseSeconds float64 `json:"leaseSeconds,omitempty"`

	// SinceRenewal is how long ago, by the backend's clock, the holder last
	// renewed the lease, when the backend knows (never stored).
	SinceRenewal time.Duration `json:"-"`
	// Expired is set by the backend when the lease was not renewed within
	// LeaseSeconds: the holder stopped (or lost the store), so the lock is
	// stale wherever the holder runs (never stored).
	Expired bool `json:"-"`
}

// Lease is the lease of a lock.
func (h LockInfo) Lease() time.Duration {
	return time.Duration(h.LeaseSeconds * float64(time.Second))
}

// Lock is a held lock. A lock is a lease that a heartbeat of the holder
// renews while it is held: a holder that stops (killed, or paused longer
// than the lease) leaves a lock that others see as stale, and a holder
// whose lock was cleared (by force, or taken over after it expired) learns
// it through Lost, and cannot commit (ErrFenced).
type Lock interface {
	// Unlock releases the lock and stops its heartbeat. It fails, leaving
	// the lock as it is, when another holder has taken it, and when the
	// lock was cleared meanwhile where the store can tell (a release that
	// is one conditional DELETE on an S3 store that answers it for a
	// missing object with success cannot).
	Unlock() error
	// Previous returns the dead holder (LockInfo.Dead) this lock was taken
	// over from, whose run the backend recorded as Interrupted in the
	// stack's history; nil when the lock was free.
	Previous() *LockInfo
	// Lost is closed once the holder finds that the lock is no longer its
	// own (its heartbeat found it cleared or taken); an operation then
	// starts nothing new. It is never closed by Unlock.
	Lost() <-chan struct{}
	// Confirm proves that the lock is still the holder's, before a step
	// calls its plugin: nil when its lease was renewed recently enough
	// (within half of it) or a renewal made now succeeds; else an error,
	// wrapping ErrLockLost when the lock was found lost (it is then marked
	// lost, see Lost), and the step must not start. A holder stopped past
	// its lease (SIGSTOP, a sleeping laptop) thus starts no step once
	// another run may have taken its lock. It returns at once, with an
	// error wrapping ctx's, when ctx ends before a renewal it needs is made.
	Confirm(ctx context.Context) error
}

// ErrFenced is returned (wrapped) by Journal.Commit when the (project,
// stack) lock the operation held when its journal opened is no longer its
// own: another holder may have written since, so nothing is committed and
// the journal stays for the next run to fold.
var ErrFenced = errors.New("the lock of this operation was lost (cleared or taken by another run), so its state was not saved")

// DefaultLease is the lease of a lock when RUNNER_LOCK_LEASE does not set
// another (a Go duration, e.g. "3s", for tests).
const DefaultLease = 60 * time.Second

// Leaser is a Store whose locks are leases: SetLease sets the lease of the
// locks taken afterwards (their heartbeat renews them every third of it).
type Leaser interface {
	SetLease(d time.Duration)
}

// HeartbeatPauser is a Lock whose heartbeat can be paused, as when its
// process is stopped (tests of lease expiry).
type HeartbeatPauser interface {
	PauseHeartbeat()
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
	// journal. When the (project, stack) lock held at OpenJournal is no
	// longer the holder's, it writes nothing and fails with ErrFenced.
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
	// Projects, in a stack's own record of a run across its projects
	// (StackRecorder), holds each project the run covered with its
	// resource changes.
	Projects map[string]map[string]int `json:"projects,omitempty"`
}
