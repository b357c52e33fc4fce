package plugintest

import (
	"context"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/state"
)

var _ backend.StackRecorder = (*Backend)(nil)

// RecordStackRun records rec, a run across the projects of stack, in the
// stack's own history.
func (b *Backend) RecordStackRun(ctx context.Context, stack string, rec backend.HistoryRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.history[stack] = append(b.history[stack], backend.HistoryEntry{HistoryRecord: rec})
	return nil
}

var _ backend.StackRunReader = (*Backend)(nil)

// LastStackRun returns the newest record of the stack's own history.
func (b *Backend) LastStackRun(ctx context.Context, stack string) (*backend.HistoryEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	hist := b.history[stack]
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Project == "" {
			e := hist[i]
			return &e, nil
		}
	}
	return nil, nil
}

// sameState reports whether two snapshots (kept decrypted) hold the same
// state, the manifest's time aside, as backend.SameCheckpoint judges
// what a backend stores.
func sameState(ctx context.Context, a, b *state.Snapshot) bool {
	if a == nil || b == nil {
		return false
	}
	da, err := state.Marshal(ctx, a, plainCrypter{})
	if err != nil {
		return false
	}
	db, err := state.Marshal(ctx, b, plainCrypter{})
	return err == nil && backend.SameCheckpoint(ctx, da, db, nil)
}

// plainCrypter "encrypts" a secret as its plaintext (comparisons only).
type plainCrypter struct{}

func (plainCrypter) EncryptValue(_ context.Context, s string) (string, error) { return s, nil }
func (plainCrypter) DecryptValue(_ context.Context, s string) (string, error) { return s, nil }
