package bucket

import (
	"testing"

	"github.com/runnerhq/runner/engine/backend"
)

// TestPendingAndApplied sorts a stack's journals by what they are to the
// stored checkpoint: to fold in (never sealed, or sealed for a checkpoint
// that was never stored) or only to remove (sealed for the stored one, or
// for one since replaced).
func TestPendingAndApplied(t *testing.T) {
	for _, tc := range []struct {
		name            string
		base, committed string
		stored          string
		pending, done   bool
	}{
		{"killed mid-run", "h0", "", "h0", true, false},
		{"killed mid-run, no checkpoint", "", "", "", true, false},
		{"killed between seal and checkpoint", "h0", "h1", "h0", true, false},
		{"killed between seal and first checkpoint", "", "h1", "", true, false},
		{"killed before its segments were removed", "h0", "h1", "h1", false, true},
		{"replaced since", "h0", "h1", "h2", false, true},
		{"began from another version", "h9", "", "h0", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := []*opJournal{{op: "a", info: backend.JournalInfo{Base: tc.base, Committed: tc.committed}}}
			if got := len(pending(ops, tc.stored)) == 1; got != tc.pending {
				t.Errorf("pending = %v, want %v", got, tc.pending)
			}
			if got := len(applied(ops, tc.stored)) == 1; got != tc.done {
				t.Errorf("applied = %v, want %v", got, tc.done)
			}
		})
	}
}
