package backend

import (
	"encoding/json"
	"time"

	"github.com/runnerhq/runner/engine/state"
)

// The journal codec, shared by every backend: a journal is JSON lines, an
// "open" line naming the SHA-256 of the snapshot it began from, step lines
// (EncodeEntry) and, once committed, a "commit" line naming the SHA-256 of
// the snapshot written. A remote backend stores the same lines in pieces
// (segments, rows) and gives their concatenation to ReadJournal and
// FoldJournal (remote.go).

// CommitLine is the last line of a journal whose steps are in the snapshot
// whose SHA-256 is snapshot.
func CommitLine(snapshot string) []byte {
	line, _ := json.Marshal(journalLine{Kind: lineCommit, Snapshot: snapshot})
	return append(line, '\n')
}

// JournalInfo is what a journal says of itself.
type JournalInfo struct {
	// Base is the SHA-256 of the snapshot the journal began from ("" when
	// none; "?" when the journal has no open line).
	Base string
	// Committed is the SHA-256 of the snapshot it was committed to, "" when
	// it was not.
	Committed string
	// Steps counts its finished steps.
	Steps int
}

// ReadJournal parses journal bytes (a torn last line dropped).
func ReadJournal(data []byte) (JournalInfo, error) {
	lines, _, err := parseJournal(data)
	if err != nil {
		return JournalInfo{}, err
	}
	info := JournalInfo{Base: "?"}
	for i, l := range lines {
		switch {
		case i == 0 && l.Kind == lineOpen:
			info.Base = l.Base
			if l.Base == noSnapshot {
				info.Base = ""
			}
		case l.Kind == lineCommit:
			info.Committed = l.Snapshot
		case EntryKind(l.Kind) == EntrySuccess:
			info.Steps++
		}
	}
	return info, nil
}

// BaseOrEmpty is s, or an empty snapshot when s is nil.
func BaseOrEmpty(s *state.Snapshot) *state.Snapshot { return baseOrEmpty(s) }

// Housekeeping is the history record, by this user and host, of an
// operation on the state itself (import, repair, migrate) begun at start.
func Housekeeping(kind string, start time.Time, msg string) HistoryRecord {
	return housekeeping(kind, start, msg)
}

// CheckName refuses a project or stack name (kind) that cannot name a
// folder or an object key.
func CheckName(kind, name string) error { return checkName(kind, name) }
