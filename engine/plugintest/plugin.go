// Package plugintest provides fakes for testing and benchmarking the
// engine and its users: an in-memory resource plugin whose behaviour is
// set through function fields, with configurable latency, and an in-memory
// backend.Backend.
package plugintest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// Type is the default resource type served by a Plugin of package "test".
const Type = "test:index:Resource"

// Plugin is an in-memory resource plugin. Its zero value serves package
// "test": it keeps the resources it creates in memory, so that Read finds
// them (by ID, or by URN when the ID is empty), and delegates to the On*
// fields when they are set. Every call is recorded.
//
// By default Diff replaces on changes to the keys in ReplaceKeys and
// updates otherwise; Create and Update return the inputs as outputs plus
// "result" ("<name>-<n>", unknown during preview) and "id".
type Plugin struct {
	// Pkg is the package served ("" means "test").
	Pkg string
	// Latency is how long each non-preview Create, Update, Delete and Read
	// takes (the wait ends early when the context ends).
	Latency time.Duration
	// ReplaceKeys lists the properties whose change forces a replacement.
	ReplaceKeys []string
	// DeleteBeforeReplace is returned by the default Diff for replacements.
	DeleteBeforeReplace bool

	OnCheck  func(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error)
	OnDiff   func(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error)
	OnCreate func(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error)
	OnRead   func(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error)
	OnUpdate func(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error)
	OnDelete func(ctx context.Context, req resource.DeleteRequest) error
	// OnConstruct serves Construct (a remote component); nil: the plugin
	// serves no components.
	OnConstruct func(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error)
	// OnCall serves Call (a component's method); nil: no methods.
	OnCall func(ctx context.Context, req resource.CallRequest) (resource.CallResponse, error)

	// NoCallLog turns the call log off (benchmarks).
	NoCallLog bool

	mu      sync.Mutex
	calls   []Call
	store   map[string]stored // by ID
	byURN   map[resource.URN]string
	nextID  atomic.Int64
	active  atomic.Int64
	maxSeen atomic.Int64
}

var _ resource.Plugin = (*Plugin)(nil)

// stored is a resource the plugin created.
type stored struct {
	urn     resource.URN
	inputs  resource.PropertyMap
	outputs resource.PropertyMap
}

// Call is one recorded plugin call.
type Call struct {
	Method  string // Check, Diff, Create, Read, Update, Delete
	URN     resource.URN
	ID      string
	Preview bool
	Start   time.Time
	End     time.Time
}

// Package returns the package served.
func (p *Plugin) Package() string {
	if p.Pkg == "" {
		return "test"
	}
	return p.Pkg
}

// Calls returns a copy of the call log.
func (p *Plugin) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// CallsOf returns the non-preview calls of method, in order of start.
func (p *Plugin) CallsOf(method string) []Call {
	var out []Call
	for _, c := range p.Calls() {
		if c.Method == method && !c.Preview {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many non-preview calls of method were made.
func (p *Plugin) Count(method string) int { return len(p.CallsOf(method)) }

// MaxConcurrent returns the most Create, Update, Delete and Read calls seen
// running at once.
func (p *Plugin) MaxConcurrent() int { return int(p.maxSeen.Load()) }

// ResetMaxConcurrent starts counting MaxConcurrent afresh.
func (p *Plugin) ResetMaxConcurrent() { p.maxSeen.Store(0) }

// Exists reports whether the plugin holds a resource with the URN.
func (p *Plugin) Exists(urn resource.URN) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.byURN[urn]
	return ok
}

// Forget removes a resource from the plugin's memory, as if someone deleted
// it by hand (refresh then finds it gone).
func (p *Plugin) Forget(urn resource.URN) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, ok := p.byURN[urn]; ok {
		delete(p.store, id)
		delete(p.byURN, urn)
	}
}

// SetOutput changes a property of a stored resource, as drift would.
func (p *Plugin) SetOutput(urn resource.URN, key string, v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, ok := p.byURN[urn]; ok {
		s := p.store[id]
		outs := s.outputs.Copy(2)
		outs[key] = v
		s.outputs = outs
		p.store[id] = s
	}
}

// record logs a call and returns the function that ends it.
func (p *Plugin) record(method string, urn resource.URN, id string, preview bool) func() {
	if p.NoCallLog {
		return func() {}
	}
	start := time.Now()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.calls = append(p.calls, Call{Method: method, URN: urn, ID: id, Preview: preview, Start: start, End: time.Now()})
	}
}

// work simulates the latency of a call that touches the world.
func (p *Plugin) work(ctx context.Context) error {
	n := p.active.Add(1)
	defer p.active.Add(-1)
	for {
		m := p.maxSeen.Load()
		if n <= m || p.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	if p.Latency <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(p.Latency)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Check calls OnCheck, or returns the inputs unchanged.
func (p *Plugin) Check(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	defer p.record("Check", req.URN, "", false)()
	if p.OnCheck != nil {
		return p.OnCheck(ctx, req)
	}
	return req.News, nil
}

// Diff calls OnDiff, or compares the inputs (see Plugin).
func (p *Plugin) Diff(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	defer p.record("Diff", req.URN, req.ID, false)()
	if p.OnDiff != nil {
		return p.OnDiff(ctx, req)
	}
	changed := resource.DiffKeys(req.OldInputs, req.NewInputs, req.IgnoreChanges)
	var replaces []string
	for _, k := range changed {
		for _, r := range p.ReplaceKeys {
			if k == r {
				replaces = append(replaces, k)
			}
		}
	}
	return resource.DiffResponse{Changed: changed, Replaces: replaces, DeleteBeforeReplace: len(replaces) > 0 && p.DeleteBeforeReplace}, nil
}

// Create calls OnCreate, or makes an in-memory resource.
func (p *Plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	defer p.record("Create", req.URN, "", req.Preview)()
	if !req.Preview {
		if err := p.work(ctx); err != nil {
			return resource.CreateResponse{}, err
		}
	}
	if p.OnCreate != nil {
		resp, err := p.OnCreate(ctx, req)
		if err == nil && !req.Preview && resp.ID != "" {
			p.keep(resp.ID, req.URN, req.Inputs, resp.Outputs)
		}
		return resp, err
	}
	if req.Preview {
		outs := req.Inputs.Copy(2)
		outs["result"] = resource.Computed{}
		outs["id"] = resource.Computed{}
		return resource.CreateResponse{Outputs: outs}, nil
	}
	id := fmt.Sprintf("%s-%d", req.URN.Name(), p.nextID.Add(1))
	outs := req.Inputs.Copy(2)
	outs["result"] = id
	outs["id"] = id
	p.keep(id, req.URN, req.Inputs, outs)
	return resource.CreateResponse{ID: id, Outputs: outs}, nil
}

func (p *Plugin) keep(id string, urn resource.URN, ins, outs resource.PropertyMap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.store == nil {
		p.store = make(map[string]stored)
		p.byURN = make(map[resource.URN]string)
	}
	p.store[id] = stored{urn: urn, inputs: ins, outputs: outs}
	p.byURN[urn] = id
}

// Read calls OnRead, or returns the stored resource (looked up by URN when
// the ID is empty); an empty ID in the response when there is none.
func (p *Plugin) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	defer p.record("Read", req.URN, req.ID, false)()
	if err := p.work(ctx); err != nil {
		return resource.ReadResponse{}, err
	}
	if p.OnRead != nil {
		return p.OnRead(ctx, req)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id := req.ID
	if id == "" {
		id = p.byURN[req.URN]
	}
	s, ok := p.store[id]
	if !ok || id == "" {
		return resource.ReadResponse{}, nil
	}
	return resource.ReadResponse{ID: id, Inputs: s.inputs, Outputs: s.outputs}, nil
}

// Update calls OnUpdate, or stores the new inputs as outputs (keeping the
// "result" and "id" outputs).
func (p *Plugin) Update(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	defer p.record("Update", req.URN, req.ID, req.Preview)()
	if !req.Preview {
		if err := p.work(ctx); err != nil {
			return resource.UpdateResponse{}, err
		}
	}
	if p.OnUpdate != nil {
		resp, err := p.OnUpdate(ctx, req)
		if err == nil && !req.Preview {
			p.keep(req.ID, req.URN, req.NewInputs, resp.Outputs)
		}
		return resp, err
	}
	outs := req.NewInputs.Copy(2)
	outs["result"] = req.OldOutputs["result"]
	outs["id"] = req.ID
	if !req.Preview {
		p.keep(req.ID, req.URN, req.NewInputs, outs)
	}
	return resource.UpdateResponse{Outputs: outs}, nil
}

// Delete calls OnDelete, then forgets the resource.
func (p *Plugin) Delete(ctx context.Context, req resource.DeleteRequest) error {
	defer p.record("Delete", req.URN, req.ID, false)()
	if err := p.work(ctx); err != nil {
		return err
	}
	if p.OnDelete != nil {
		if err := p.OnDelete(ctx, req); err != nil {
			return err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.store, req.ID)
	if p.byURN[req.URN] == req.ID {
		delete(p.byURN, req.URN)
	}
	return nil
}

// URNs returns the URNs of the stored resources, sorted.
func (p *Plugin) URNs() []resource.URN {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]resource.URN, 0, len(p.byURN))
	for u := range p.byURN {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Put stores a resource as if it existed before the engine ran (for
// imports): Read finds it by id.
func (p *Plugin) Put(id string, urn resource.URN, ins, outs resource.PropertyMap) {
	p.keep(id, urn, ins, outs)
}
