package pluginhost

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// handle is the resource.Configurable of one package and version in a
// pool. It starts nothing until its first call.
type handle struct {
	pool         *Pool
	pkg, version string
	// variant tells apart parameterized packages of one name and version
	// made of different base plugins or values ("": not parameterized).
	variant string
}

// slot is the version the pool keeps the handle's processes under: its
// version, with the variant of a parameterized package.
func (h *handle) slot() string {
	if h.variant == "" {
		return h.version
	}
	return h.version + "\x00" + h.variant
}

// Package is the package served.
func (h *handle) Package() string { return h.pkg }

// Version is the version asked for ("": any).
func (h *handle) Version() string { return h.version }

// CheckConfig validates the provider's inputs on any plugin process of the
// package and version (starting one if there is none).
func (h *handle) CheckConfig(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	p, err := h.any(ctx, req.URN, req.News)
	if err != nil {
		return nil, err
	}
	return p.checkConfig(ctx, req)
}

// DiffConfig compares the provider's recorded inputs with new ones on any
// plugin process of the package and version.
func (h *handle) DiffConfig(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	p, err := h.any(ctx, req.URN, req.NewInputs)
	if err != nil {
		return resource.DiffResponse{}, err
	}
	return p.diffConfig(ctx, req)
}

func (h *handle) any(ctx context.Context, urn resource.URN, inputs resource.PropertyMap) (*plugin, error) {
	p, err := h.pool.acquire(h.pkg, h.slot(), "", urn, inputs)
	if err != nil {
		return nil, err
	}
	return p, p.wait(ctx)
}

// Start starts a process for a provider with inputs, as CheckConfig
// would, without waiting for it: CheckConfig and Configure of those inputs
// then use it.
func (h *handle) Start(urn resource.URN, inputs resource.PropertyMap) {
	_, _ = h.pool.acquire(h.pkg, h.slot(), "", urn, inputs) // an error is that of the calls that follow
}

// Configure returns the plugin process configured with req.Inputs: one
// process, configured once, per distinct configuration in the pool.
// Inputs holding Computed values configure nothing: the plugin returned
// answers as Pulumi's CLI does for an unknown configuration.
func (h *handle) Configure(ctx context.Context, req resource.ConfigureRequest) (resource.Plugin, error) {
	if resource.ContainsComputed(map[string]any(req.Inputs)) {
		return &unconfigured{pkg: h.pkg, log: h.pool.log}, nil
	}
	p, err := h.pool.acquire(h.pkg, h.slot(), configKey(req.Inputs), req.URN, req.Inputs)
	if err != nil {
		return nil, err
	}
	if err := p.configure(ctx, req); err != nil {
		return nil, err
	}
	return &configured{h: h, req: req, key: configKey(req.Inputs), p: p}, nil
}

func (h *handle) notConfigured() error {
	return fmt.Errorf("the %s plugin is not configured: the engine must call Configure and use the plugin it returns", h.pkg)
}

// Check fails: resource calls go to the plugin Configure returns.
func (h *handle) Check(context.Context, resource.CheckRequest) (resource.PropertyMap, error) {
	return nil, h.notConfigured()
}

// Diff fails: resource calls go to the plugin Configure returns.
func (h *handle) Diff(context.Context, resource.DiffRequest) (resource.DiffResponse, error) {
	return resource.DiffResponse{}, h.notConfigured()
}

// Create fails: resource calls go to the plugin Configure returns.
func (h *handle) Create(context.Context, resource.CreateRequest) (resource.CreateResponse, error) {
	return resource.CreateResponse{}, h.notConfigured()
}

// Read fails: resource calls go to the plugin Configure returns.
func (h *handle) Read(context.Context, resource.ReadRequest) (resource.ReadResponse, error) {
	return resource.ReadResponse{}, h.notConfigured()
}

// Update fails: resource calls go to the plugin Configure returns.
func (h *handle) Update(context.Context, resource.UpdateRequest) (resource.UpdateResponse, error) {
	return resource.UpdateResponse{}, h.notConfigured()
}

// Delete fails: resource calls go to the plugin Configure returns.
func (h *handle) Delete(context.Context, resource.DeleteRequest) error {
	return h.notConfigured()
}

// unconfigured answers resource calls for a provider whose configuration
// is not known yet (a preview), without calling the plugin, as Pulumi's
// CLI does.
type unconfigured struct {
	pkg string
	log func(LogEntry)
}

func (u *unconfigured) Package() string { return u.pkg }

// Check accepts the inputs as they are.
func (u *unconfigured) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	return req.News, nil
}

// Diff cannot ask the plugin: like Pulumi, it counts an update ("diff
// unavailable"), naming the inputs the program declared that differ from
// the recorded ones, if any. A recorded input the program does not
// declare is not named: Check did not run, so the plugin's defaults
// (apiVersion, kind, auto-names) are missing from the new inputs, and
// naming them would announce changes that up does not make.
func (u *unconfigured) Diff(_ context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	u.log(LogEntry{Severity: "warning", URN: req.URN,
		Message: "diff unavailable: the " + u.pkg + " provider's configuration is not known until the update"})
	declared := make(resource.PropertyMap, len(req.NewInputs))
	for k := range req.NewInputs {
		if v, ok := req.OldInputs[k]; ok {
			declared[k] = v
		}
	}
	changed := resource.DiffKeys(declared, req.NewInputs, req.IgnoreChanges)
	return resource.DiffResponse{Changed: changed, ChangedUnnamed: len(changed) == 0}, nil
}

// Create predicts the inputs as outputs, with no ID.
func (u *unconfigured) Create(_ context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if !req.Preview {
		return resource.CreateResponse{}, u.unknown("create", req.URN)
	}
	return resource.CreateResponse{Outputs: req.Inputs}, nil
}

// Update predicts the new inputs as outputs.
func (u *unconfigured) Update(_ context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	if !req.Preview {
		return resource.UpdateResponse{}, u.unknown("update", req.URN)
	}
	return resource.UpdateResponse{Outputs: req.NewInputs}, nil
}

// Read returns empty state under the same ID (not "gone").
func (u *unconfigured) Read(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	return resource.ReadResponse{ID: req.ID, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}}, nil
}

// Delete fails: deletes never happen in a preview.
func (u *unconfigured) Delete(_ context.Context, req resource.DeleteRequest) error {
	return u.unknown("delete", req.URN)
}

func (u *unconfigured) unknown(op string, urn resource.URN) error {
	return fmt.Errorf("cannot %s %s: the %s provider's configuration holds values not known until the update", op, urn, u.pkg)
}
