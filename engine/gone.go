package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// goneError is a failed update or delete of a resource whose real object
// no longer exists; its message tells how to bring the state up to date.
type goneError struct {
	urn resource.URN
	err error
}

func (e *goneError) Error() string {
	return fmt.Sprintf("%v; %s no longer exists (it was deleted or stopped outside runner): run `runner refresh` to record that, then run up again", e.err, e.urn.Name())
}

func (e *goneError) Unwrap() error { return e.err }

// Is makes the error match resource.ErrGone also when the plugin did not
// say so itself.
func (e *goneError) Is(target error) bool { return target == resource.ErrGone }

// explainGone returns err, the failure of an update or delete of rec, as a
// *goneError when the plugin says the object is gone or reading it back
// finds it gone; otherwise err unchanged.
func explainGone(ctx context.Context, plugin resource.Plugin, rec *state.Resource, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if !errors.Is(err, resource.ErrGone) {
		resp, rerr := plugin.Read(ctx, resource.ReadRequest{URN: rec.URN, Type: rec.Type, ID: rec.ID, Inputs: rec.Inputs, Outputs: rec.Outputs})
		if rerr != nil || resp.ID != "" {
			return err
		}
	}
	return &goneError{urn: rec.URN, err: err}
}
