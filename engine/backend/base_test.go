package backend

import (
	"context"
	"os"
	"testing"

	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestOpenJournalBase: a journal that begins from the snapshot Load
// returned leaves snapshot.json as it is; one that begins from anything
// else (a copy with a change, the snapshot of another process's Load)
// stores its base first.
func TestOpenJournalBase(t *testing.T) {
	ctx := context.Background()
	c := statetest.NewCrypter(1)
	tests := []struct {
		name    string
		base    func(f *Folder) (*state.Snapshot, error)
		rewrite bool
	}{
		{"the snapshot as loaded", func(f *Folder) (*state.Snapshot, error) { return f.Load(ctx, "network", "dev", c) }, false},
		{"a changed copy", func(f *Folder) (*state.Snapshot, error) {
			s, err := f.Load(ctx, "network", "dev", c)
			if err != nil {
				return nil, err
			}
			cp := *s
			cp.Resources = cp.Resources[:len(cp.Resources)-1]
			return &cp, nil
		}, true},
		{"loaded by another Folder", func(f *Folder) (*state.Snapshot, error) {
			other, err := Open(f.Root)
			if err != nil {
				return nil, err
			}
			return other.Load(ctx, "network", "dev", c)
		}, false},
		{"built in memory", func(*Folder) (*state.Snapshot, error) { return statetest.Snapshot("network", "dev", 3), nil }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openTemp(t)
			commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 3), c)
			p, _ := f.paths("network", "dev")
			before, err := os.Stat(p.snapshot)
			if err != nil {
				t.Fatal(err)
			}
			b, err := tt.base(f)
			if err != nil {
				t.Fatal(err)
			}
			j, err := f.OpenJournal(ctx, "network", "dev", b, c)
			if err != nil {
				t.Fatal(err)
			}
			defer j.(*folderJournal).stop()
			after, err := os.Stat(p.snapshot)
			if err != nil {
				t.Fatal(err)
			}
			if rewritten := !os.SameFile(before, after); rewritten != tt.rewrite {
				t.Fatalf("snapshot.json rewritten = %v, want %v", rewritten, tt.rewrite)
			}
		})
	}
}
