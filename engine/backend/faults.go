package backend

import "fmt"

// WriteKind names one kind of state write of the folder backend.
type WriteKind string

// The state writes of an operation, in the order an operation makes them.
const (
	WriteJournalOpen    WriteKind = "journal-open"    // journal.jsonl created with its open line
	WriteJournalSeal    WriteKind = "journal-seal"    // a leftover journal sealed before a new base replaces the snapshot
	WriteSnapshot       WriteKind = "snapshot"        // the checkpoint replaced (a base or a final snapshot)
	WriteJournalEntries WriteKind = "journal-entries" // a batch of step entries appended
	WriteJournalCommit  WriteKind = "journal-commit"  // the commit line appended
	WriteHistory        WriteKind = "history"         // the stack's history file appended
	WriteJournalRemove  WriteKind = "journal-remove"  // the committed journal removed
)

// Faults decides whether a state write fails, so that tests can simulate a
// full disk or a file turned read-only at any write. It is consulted before
// every write listed by WriteKind.
type Faults interface {
	// Write is called before a write of size bytes to path. A nil error lets
	// the write happen. With an error, the write fails with it; for an
	// appending write (journal entries), the first keep bytes reach the file
	// first, as a write cut short by a full disk leaves them.
	Write(kind WriteKind, path string, size int) (keep int, err error)
}

// fault asks f.Faults about a write; it returns the bytes to keep and the
// error to fail with (nil: write normally).
func (f *Folder) fault(kind WriteKind, path string, size int) (int, error) {
	if f.Faults == nil {
		return 0, nil
	}
	keep, err := f.Faults.Write(kind, path, size)
	if err == nil {
		return 0, nil
	}
	keep = min(max(keep, 0), size)
	return keep, fmt.Errorf("writing %s: %w", path, err)
}
