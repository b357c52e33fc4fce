package pluginhost

import (
	"context"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
)

// maxRestarts bounds how many times a run restarts the plugin process of
// one configuration after it died: a plugin that dies on every call fails
// the calls that follow instead of being started again and again.
const maxRestarts = 3

// configured is the resource.Plugin Configure returns: the plugin process
// serving one configuration. The process is shared by every project of the
// run, so when it dies, the call in flight fails with its exit and last
// output lines (it is never retried: the plugin may have done part of it),
// and the calls that start after the death go to a new process, configured
// alike, so that projects that had nothing in flight carry on.
type configured struct {
	h   *handle
	req resource.ConfigureRequest
	key string

	mu sync.Mutex
	p  *plugin
}

// Package is the package served.
func (c *configured) Package() string { return c.h.pkg }

// live returns the process for a call starting now: the current one, or a
// new one if the current one has exited.
func (c *configured) live(ctx context.Context) (*plugin, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.p.exited() {
		return c.p, nil
	}
	p, err := c.h.pool.acquire(c.h.pkg, c.h.slot(), c.key, c.req.URN, c.req.Inputs)
	if err != nil {
		return nil, err
	}
	if p == c.p { // the restarts are used up: the call fails with the death
		return p, nil
	}
	if err := p.configure(ctx, c.req); err != nil {
		return nil, err
	}
	c.p = p
	return p, nil
}

// Check validates a resource's inputs.
func (c *configured) Check(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	p, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	return p.Check(ctx, req)
}

// Diff compares a resource's recorded state with its new inputs.
func (c *configured) Diff(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.DiffResponse{}, err
	}
	return p.Diff(ctx, req)
}

// Create creates a resource.
func (c *configured) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.CreateResponse{}, err
	}
	return p.Create(ctx, req)
}

// Read reads a resource's live state.
func (c *configured) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.ReadResponse{}, err
	}
	return p.Read(ctx, req)
}

// Update updates a resource.
func (c *configured) Update(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	p, err := c.live(ctx)
	if err != nil {
		return resource.UpdateResponse{}, err
	}
	return p.Update(ctx, req)
}

// Delete deletes a resource.
func (c *configured) Delete(ctx context.Context, req resource.DeleteRequest) error {
	p, err := c.live(ctx)
	if err != nil {
		return err
	}
	return p.Delete(ctx, req)
}

// exited reports whether the process started and has exited since (a
// plugin that failed to start is not restarted: it would fail again).
func (p *plugin) exited() bool {
	select {
	case <-p.ready:
	default:
		return false
	}
	if p.startErr != nil {
		return false
	}
	select {
	case <-p.proc.exited:
		return true
	default:
		return false
	}
}
