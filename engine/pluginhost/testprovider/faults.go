package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The inputs that inject faults and delays into resource operations.
const (
	inSleepMs   = "sleepMs"   // number: sleep this long in Create, Update and Delete
	inHang      = "hang"      // true: Create and Update block until cancelled or timed out
	inCrash     = "crash"     // "create", "update" or "delete": exit(2) after the store was changed
	inInitError = "initError" // true: Create stores the resource, then fails with ErrorResourceInitFailed
	inWarn      = "warn"      // string: Create and Update log it to the engine as a WARNING
	inCheckFail = "checkFail" // a property name: Check fails for it
)

// initFailedReason is the reason of the init error initError provokes.
const initFailedReason = "init failed on purpose"

// pause sleeps for sleepMs and blocks for hang (with timeout seconds, 0 =
// none), returning early with a gRPC error when ctx ends, the timeout
// expires or the provider is cancelled.
func (p *provider) pause(ctx context.Context, props resource.PropertyMap, op string, timeout float64, hangs bool) error {
	var wait <-chan time.Time
	if v := plain(props[inSleepMs]); v.IsNumber() && v.NumberValue() > 0 {
		wait = time.After(time.Duration(v.NumberValue() * float64(time.Millisecond)))
	}
	if v := plain(props[inHang]); hangs && v.IsBool() && v.BoolValue() {
		wait = nil // forever
	} else if wait == nil {
		return nil
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
		defer cancel()
	}
	select {
	case <-wait:
		return nil
	case <-p.cancelled:
		return status.Errorf(codes.Canceled, "testprov: %s was cancelled (the engine called Cancel)", op)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return status.Errorf(codes.DeadlineExceeded, "testprov: %s timed out after %gs", op, timeout)
		}
		return status.Errorf(codes.Canceled, "testprov: %s was cancelled by the caller", op)
	}
}

// crashIf exits the process abruptly when the crash input names op.
func crashIf(props resource.PropertyMap, op string) {
	if v := plain(props[inCrash]); v.IsString() && v.StringValue() == op {
		fmt.Fprintln(os.Stderr, "testprov: crashing on purpose")
		os.Exit(2)
	}
}

// isTrue reports whether props[key] is the boolean true (secret or not).
func isTrue(props resource.PropertyMap, key resource.PropertyKey) bool {
	v := plain(props[key])
	return v.IsBool() && v.BoolValue()
}

// initFailed is Pulumi's partial-success error: the resource id exists with
// outputs and inputs, but its initialisation failed.
func initFailed(id string, outputs, inputs resource.PropertyMap) error {
	opts := plugin.MarshalOptions{Label: "initError", KeepSecrets: true, KeepResources: true}
	outs, err := plugin.MarshalProperties(outputs, opts)
	if err != nil {
		return status.Errorf(codes.Internal, "testprov: encode the outputs of %s: %v", id, err)
	}
	ins, err := plugin.MarshalProperties(inputs, opts)
	if err != nil {
		return status.Errorf(codes.Internal, "testprov: encode the inputs of %s: %v", id, err)
	}
	st := status.New(codes.Unknown, "testprov: resource "+id+" was created but "+initFailedReason)
	withDetail, err := st.WithDetails(&pulumirpc.ErrorResourceInitFailed{
		Id: id, Properties: outs, Inputs: ins, Reasons: []string{initFailedReason},
	})
	if err != nil {
		return status.Errorf(codes.Internal, "testprov: attach the init error of %s: %v", id, err)
	}
	return withDetail.Err()
}
