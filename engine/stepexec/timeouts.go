package stepexec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// TimeoutGrace is how long past a custom timeout the engine waits for the
// plugin, which got the timeout too, to end the call itself.
func TimeoutGrace(limit time.Duration) time.Duration {
	return min(max(time.Second, limit/10), time.Minute)
}

// WithTimeout returns ctx bounded by a custom timeout plus its grace (ctx
// itself for 0: no timeout).
func WithTimeout(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, limit+TimeoutGrace(limit))
}

// TimedOut turns the error of a call whose custom timeout ended it into an
// error saying so.
func TimedOut(ctx context.Context, err error, what, name string, limit time.Duration) error {
	if err == nil || limit <= 0 || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s of %s timed out after %s (customTimeouts): %w", what, name, limit, err)
}

// CallDelete asks plugin to delete res, bounded by its custom delete
// timeout.
func CallDelete(ctx context.Context, plugin resource.Plugin, res *state.Resource) error {
	limit := res.CustomTimeouts.Delete
	cctx, cancel := WithTimeout(ctx, limit)
	defer cancel()
	err := plugin.Delete(cctx, resource.DeleteRequest{URN: res.URN, Type: res.Type, ID: res.ID, Inputs: res.Inputs, Outputs: res.Outputs, Timeout: limit})
	return TimedOut(cctx, err, "delete", res.URN.Name(), limit)
}
