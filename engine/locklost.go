package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
)

// cancelOnLost returns ctx cancelled, its cause wrapping
// backend.ErrLockLost, once lock is lost (its heartbeat found it cleared or
// taken): the operation then starts no new step, and its commit is fenced.
// stop ends the watch.
func cancelOnLost(ctx context.Context, lock backend.Lock) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		select {
		case <-lock.Lost():
			cancel(fmt.Errorf("the lock was lost (cleared by force, or taken by another run after this one stopped renewing it), so no new step starts: %w", backend.ErrLockLost))
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}
