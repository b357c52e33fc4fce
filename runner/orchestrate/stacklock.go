package orchestrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/runner/event"
)

// lockStack takes the stack-wide lock for the operations that change the
// stack (up, refresh, destroy), so that two of them never run at once; the
// refusal is a *backend.LockedError naming the holder. It returns the
// context of the run, cancelled (its cause wrapping backend.ErrLockLost)
// when the lock is lost while the run goes on, and the function that
// releases the lock.
func (o *run) lockStack(ctx context.Context) (context.Context, func(), error) {
	sl, ok := o.req.Backend.(backend.StackLocker)
	if !ok || o.req.Operation == Preview {
		return ctx, func() {}, nil
	}
	lock, err := sl.LockStack(ctx, o.req.Stack, o.req.Lock)
	if errors.Is(err, context.Canceled) {
		return nil, nil, fmt.Errorf("%s was interrupted before it started; nothing was changed: %w", o.req.Operation, context.Canceled)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", o.req.Operation, err)
	}
	o.stackLock = lock
	if dead := lock.Previous(); dead != nil {
		o.emit(event.Event{Type: event.Warning, Stack: o.req.Stack, Message: backend.TakeoverWarning("stack "+o.req.Stack, *dead)})
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		select {
		case <-lock.Lost():
			lost := fmt.Errorf("%s: the lock of stack %s was lost (cleared by force, or taken by another run after this one stopped renewing it), so no new step starts: %w",
				o.req.Operation, o.req.Stack, backend.ErrLockLost)
			o.emit(event.Event{Type: event.Warning, Stack: o.req.Stack, Message: lost.Error()})
			cancel(lost)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
		if err := lock.Unlock(); err != nil {
			o.emit(event.Event{Type: event.Warning, Stack: o.req.Stack, Message: err.Error()})
		}
	}, nil
}
