package backend

import (
	"context"

	"github.com/runnerhq/runner/engine/resource"
)

// Store is a backend as runner and its command line use it: everything the
// engine needs (Backend), the stack-wide lock, and the stack commands'
// reading and housekeeping. Every backend (the folder now; PostgreSQL and
// S3 later) implements it and passes the conformance suite of package
// backendtest. Implementations are safe for concurrent use.
type Store interface {
	Backend
	StackLocker
	Lister
	LockKeeper
	Historian
	Tagger
	Archiver
	// StateDigest names the stored state of project on stack: "" when there
	// is none, and a value that changes whenever what is stored changes (a
	// plan records it and is refused once it differs). Loads never change it.
	StateDigest(ctx context.Context, project, stack string) (string, error)
}

// Lister lists what a backend holds.
type Lister interface {
	// ListStacks returns every stack that has a project with state, sorted
	// by name, each with its projects sorted.
	ListStacks(ctx context.Context) ([]StackInfo, error)
	// Projects lists, sorted, the projects with state (a committed snapshot
	// or the journal of an unfinished operation) on stack; none is not an
	// error.
	Projects(ctx context.Context, stack string) ([]string, error)
	// StackExists reports whether the backend holds anything of stack:
	// state, a lock, tags or history.
	StackExists(ctx context.Context, stack string) (bool, error)
	// Summary describes the (project, stack) state without decrypting it.
	// It wraps ErrNotFound when the project has no state there.
	Summary(ctx context.Context, project, stack string) (StackSummary, error)
	// Outputs returns the outputs of the project's root stack resource,
	// secrets decrypted by crypter (still wrapped in resource.Secret), an
	// unfinished operation's journal folded in. It wraps ErrNotFound when
	// the project has no state there.
	Outputs(ctx context.Context, project, stack string, crypter resource.Crypter) (resource.PropertyMap, error)
	// StackSecrets returns, for every project with state on stack (sorted
	// by project), what its state records of its secrets, without
	// decrypting anything. A state that does not parse is marked
	// Unreadable, not an error.
	StackSecrets(ctx context.Context, stack string) ([]StateSecrets, error)
}

// LockKeeper inspects and clears the locks Lock and LockStack take.
type LockKeeper interface {
	// LockHolder returns the holder of the (project, stack) lock, nil when
	// it is not taken.
	LockHolder(ctx context.Context, project, stack string) (*LockInfo, error)
	// ForceUnlock clears the (project, stack) lock whoever holds it;
	// clearing a lock that is not taken succeeds.
	ForceUnlock(ctx context.Context, project, stack string) error
	// StackLockHolder returns the holder of the stack's own lock
	// (LockStack), nil when it is not taken.
	StackLockHolder(ctx context.Context, stack string) (*LockInfo, error)
	// ForceUnlockStack clears the stack's own lock whoever holds it;
	// clearing a lock that is not taken succeeds.
	ForceUnlockStack(ctx context.Context, stack string) error
	// LockedProjects lists, sorted, the projects of stack whose lock is
	// taken (a project may be locked before it has state).
	LockedProjects(ctx context.Context, stack string) ([]string, error)
}

// Historian reads the operations recorded by Journal.Commit, Import and
// Repair.
type Historian interface {
	// History returns the operations recorded for stack, newest first;
	// with a project name, only that project's.
	History(ctx context.Context, stack, project string) ([]HistoryEntry, error)
}

// Tagger keeps a stack's tags.
type Tagger interface {
	// Tags returns the stack's tags: an empty map, never nil, when none are
	// set.
	Tags(ctx context.Context, stack string) (map[string]string, error)
	// SetTag sets one tag of the stack; an empty name is an error.
	SetTag(ctx context.Context, stack, key, value string) error
	// RemoveTag removes one tag of the stack; removing a missing tag
	// succeeds.
	RemoveTag(ctx context.Context, stack, key string) error
}

// Archiver moves a project's state in and out of the backend and mends or
// removes it.
type Archiver interface {
	// Export returns the (project, stack) snapshot as a Pulumi deployment
	// (version 3) with its secrets encrypted, an unfinished operation's
	// journal not folded in. It wraps ErrNotFound when there is none.
	Export(ctx context.Context, project, stack string) ([]byte, error)
	// Import replaces the (project, stack) snapshot with data, a Pulumi
	// deployment, under the project's lock, once data passes the checks of
	// CheckImport; an unfinished operation's journal is set aside and an
	// "import" entry recorded in the history. Anything wrong leaves the
	// state as it was.
	Import(ctx context.Context, project, stack string, data []byte, crypter resource.Crypter) error
	// Repair makes the (project, stack) state loadable again under its
	// lock (see RepairSnapshot) and returns one sentence per change; no
	// change, nothing written.
	Repair(ctx context.Context, project, stack string, crypter resource.Crypter) ([]string, error)
	// RemoveStack removes the state of project on stack under its lock,
	// refusing while the snapshot holds resources other than the root
	// stack unless force is set. When no project is left on the stack, its
	// tags and history go too.
	RemoveStack(ctx context.Context, project, stack string, force bool) error
}

var _ Store = (*Folder)(nil)
