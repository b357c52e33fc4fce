package stepexec

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// GoneError is a failed update or delete of a resource whose real object
// no longer exists; its message tells how to bring the state up to date.
type GoneError struct {
	URN resource.URN
	Err error
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("%v; %s no longer exists (it was deleted or stopped outside runner): run `runner refresh` to record that, then run up again", e.Err, e.URN.Name())
}

func (e *GoneError) Unwrap() error { return e.Err }

// Is makes the error match resource.ErrGone also when the plugin did not
// say so itself.
func (e *GoneError) Is(target error) bool { return target == resource.ErrGone }

// ExplainGone returns err, the failure of an update or delete of rec, as a
// *GoneError when the plugin says the object is gone or reading it back
// finds it gone; otherwise err unchanged.
func ExplainGone(ctx context.Context, plugin resource.Plugin, rec *state.Resource, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if !errors.Is(err, resource.ErrGone) {
		resp, rerr := plugin.Read(ctx, resource.ReadRequest{URN: rec.URN, Type: rec.Type, ID: rec.ID, Inputs: rec.Inputs, Outputs: rec.Outputs})
		if rerr != nil || resp.ID != "" {
			return err
		}
	}
	return &GoneError{URN: rec.URN, Err: err}
}
