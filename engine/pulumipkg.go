package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// pulumiPackage is the plugin of the built-in pulumi package, which the
// engine serves itself, as Pulumi's engine does: its one resource,
// pulumi:pulumi:StackReference, is only ever read (a read resource,
// recorded external under the default provider
// pulumi:providers:pulumi::default, as Pulumi records it), and its Read
// gives the referenced stack's outputs. Nothing of it is created, updated
// or deleted.
type pulumiPackage struct{ d *deployment }

var _ resource.Plugin = (*pulumiPackage)(nil)

// Package is "pulumi".
func (p *pulumiPackage) Package() string { return "pulumi" }

// Read reads a stack reference, its ID the referenced stack's name.
func (p *pulumiPackage) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	if req.Type != stackReferenceType {
		return resource.ReadResponse{}, p.refuse(req.Type, "read")
	}
	outs, err := p.d.readStackReference(ctx, req.ID)
	if err != nil {
		return resource.ReadResponse{}, err
	}
	return resource.ReadResponse{ID: req.ID, Outputs: outs}, nil
}

// refuse says the built-in package does not do what was asked.
func (p *pulumiPackage) refuse(typ, what string) error {
	if typ == stackReferenceType {
		return fmt.Errorf("%s is only read (a stack reference), never %s", typ, what)
	}
	return fmt.Errorf("the built-in pulumi package has no resource %s", typ)
}

// Check refuses: the package's resources are read, not registered.
func (p *pulumiPackage) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	return nil, p.refuse(req.Type, "registered")
}

// Diff refuses, as Check does.
func (p *pulumiPackage) Diff(_ context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	return resource.DiffResponse{}, p.refuse(req.Type, "compared")
}

// Create refuses, as Check does.
func (p *pulumiPackage) Create(_ context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	return resource.CreateResponse{}, p.refuse(req.Type, "created")
}

// Update refuses, as Check does.
func (p *pulumiPackage) Update(_ context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	return resource.UpdateResponse{}, p.refuse(req.Type, "updated")
}

// Delete refuses, as Check does (a read resource is never deleted).
func (p *pulumiPackage) Delete(_ context.Context, req resource.DeleteRequest) error {
	return p.refuse(req.Type, "deleted")
}
