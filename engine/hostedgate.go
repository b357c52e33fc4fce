package engine

import (
	"context"

	"github.com/runnerhq/runner/engine/monitor"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// gate is the deployment as the monitor serves it to a program that may
// start before the operation is ready for it (source.Declarative): each
// call waits until the gate is opened, and fails with the reason when the
// operation ends instead.
type gate struct {
	d      *deployment // a field, not embedded: a new call of the monitor must be gated here to compile
	opened chan struct{}
	err    error // set before opened is closed
}

var _ monitor.Deployment = (*gate)(nil)

func newGate(d *deployment) *gate { return &gate{d: d, opened: make(chan struct{})} }

// open lets the program's calls through (err nil) or fails them with err.
func (g *gate) open(err error) {
	g.err = err
	close(g.opened)
}

// wait returns once the gate is open, with the reason it failed.
func (g *gate) wait(ctx context.Context) error {
	select {
	case <-g.opened:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Preflight is not called by the monitor (compiled-in programs only).
func (g *gate) Preflight(ctx context.Context, pf source.Preflight) error {
	if err := g.wait(ctx); err != nil {
		return err
	}
	return g.d.Preflight(ctx, pf)
}

// Register waits for the gate, then decides and runs the resource's step.
func (g *gate) Register(ctx context.Context, r *source.Registration) (source.Answer, error) {
	if err := g.wait(ctx); err != nil {
		return source.Answer{}, err
	}
	return g.d.Register(ctx, r)
}

// RegisterOutputs waits for the gate, then records the outputs.
func (g *gate) RegisterOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	if err := g.wait(ctx); err != nil {
		return err
	}
	return g.d.RegisterOutputs(ctx, urn, outputs)
}

// ReadResource waits for the gate, then reads the resource.
func (g *gate) ReadResource(ctx context.Context, req monitor.ReadRequest) (source.Answer, error) {
	if err := g.wait(ctx); err != nil {
		return source.Answer{}, err
	}
	return g.d.ReadResource(ctx, req)
}

// Invoke waits for the gate, then calls the function.
func (g *gate) Invoke(ctx context.Context, req monitor.InvokeRequest) (monitor.InvokeResult, error) {
	if err := g.wait(ctx); err != nil {
		return monitor.InvokeResult{}, err
	}
	return g.d.Invoke(ctx, req)
}

// Schema waits for the gate, then returns the package's schema.
func (g *gate) Schema(ctx context.Context, pkg, version, downloadURL string, pz *resource.Parameterization) ([]byte, error) {
	if err := g.wait(ctx); err != nil {
		return nil, err
	}
	return g.d.Schema(ctx, pkg, version, downloadURL, pz)
}

// Log waits for the gate and records the message, or drops it when the
// gate failed (the program is being stopped).
func (g *gate) Log(severity, message string, urn resource.URN) {
	if g.wait(context.Background()) == nil {
		g.d.Log(severity, message, urn)
	}
}

// Construct waits for the gate, then constructs the component.
func (g *gate) Construct(ctx context.Context, req monitor.ConstructRequest) (resource.ConstructResponse, error) {
	if err := g.wait(ctx); err != nil {
		return resource.ConstructResponse{}, err
	}
	return g.d.Construct(ctx, req)
}

// Call waits for the gate, then calls the component's method.
func (g *gate) Call(ctx context.Context, req monitor.CallRequest) (resource.CallResponse, error) {
	if err := g.wait(ctx); err != nil {
		return resource.CallResponse{}, err
	}
	return g.d.Call(ctx, req)
}
