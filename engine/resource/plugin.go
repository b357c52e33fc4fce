package resource

import (
	"context"
	"errors"
)

// Plugin creates, reads, updates and deletes the resources of one package
// (the part of a type token before the first colon). Pulumi calls these
// resource providers. Implementations must be safe for concurrent use: the
// engine calls them from several steps at once.
type Plugin interface {
	// Package is the package served, such as "random" or "tls".
	Package() string
	// Check validates new inputs and fills defaults. olds are the previous
	// inputs (nil on create). Failures should name the property at fault.
	Check(ctx context.Context, req CheckRequest) (PropertyMap, error)
	// Diff compares the previous state with new (checked) inputs.
	Diff(ctx context.Context, req DiffRequest) (DiffResponse, error)
	// Create makes a resource. With Preview set it causes no side effect and
	// returns the outputs it can predict, Computed for the rest.
	Create(ctx context.Context, req CreateRequest) (CreateResponse, error)
	// Read reads a resource back (refresh, crash recovery). An empty ID in the
	// response means the resource no longer exists. When req.ID is empty the
	// plugin looks the resource up from its inputs, or returns ErrNotRecognizable.
	Read(ctx context.Context, req ReadRequest) (ReadResponse, error)
	// Update changes a resource in place. With Preview set, no side effect.
	Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error)
	// Delete removes a resource. Deleting one that is already gone succeeds.
	Delete(ctx context.Context, req DeleteRequest) error
}

// ErrGone is matched (errors.Is) by the error of an Update or Delete that
// failed because the resource's real object no longer exists: it was
// deleted or stopped outside runner. A plugin that can tell wraps it in its
// error; otherwise the engine finds it out by reading the resource back.
var ErrGone = errors.New("the resource no longer exists")

// ErrNotRecognizable is returned by Read when the plugin cannot find a
// resource from its inputs alone (it needs the ID).
var ErrNotRecognizable = errors.New("the plugin cannot find this resource without its ID")

// CheckRequest asks a plugin to validate inputs.
type CheckRequest struct {
	URN  URN
	Type string
	Olds PropertyMap // previous inputs; nil on create
	News PropertyMap // declared inputs; may hold Computed values during preview
}

// DiffRequest asks a plugin what changed.
type DiffRequest struct {
	URN           URN
	Type          string
	ID            string
	OldInputs     PropertyMap
	OldOutputs    PropertyMap
	NewInputs     PropertyMap
	IgnoreChanges []string // top-level property names whose changes are ignored
}

// DiffResponse says which properties changed and how.
type DiffResponse struct {
	// Changed lists every changed property (sorted); empty means no change.
	Changed []string
	// Replaces lists the changed properties that force a replacement.
	Replaces []string
	// DeleteBeforeReplace asks for the old resource to be deleted first.
	DeleteBeforeReplace bool
}

// CreateRequest asks a plugin to create a resource.
type CreateRequest struct {
	URN     URN
	Type    string
	Inputs  PropertyMap
	Preview bool
}

// CreateResponse carries the new resource's ID and outputs.
type CreateResponse struct {
	ID      string
	Outputs PropertyMap
}

// ReadRequest asks a plugin for a resource's current state.
type ReadRequest struct {
	URN     URN
	Type    string
	ID      string
	Inputs  PropertyMap
	Outputs PropertyMap
}

// ReadResponse is a resource's current state; an empty ID means it is gone.
type ReadResponse struct {
	ID      string
	Inputs  PropertyMap
	Outputs PropertyMap
}

// UpdateRequest asks a plugin to change a resource in place.
type UpdateRequest struct {
	URN        URN
	Type       string
	ID         string
	OldInputs  PropertyMap
	OldOutputs PropertyMap
	NewInputs  PropertyMap
	Preview    bool
}

// UpdateResponse carries the updated outputs.
type UpdateResponse struct {
	Outputs PropertyMap
}

// DeleteRequest asks a plugin to delete a resource.
type DeleteRequest struct {
	URN     URN
	Type    string
	ID      string
	Inputs  PropertyMap
	Outputs PropertyMap
}

// Crypter encrypts and decrypts secret values for state at rest. The
// passphrase crypter of package config implements it; its ciphertexts are
// Pulumi's ("v1:<nonce>:<ciphertext>").
type Crypter interface {
	EncryptValue(ctx context.Context, plaintext string) (string, error)
	DecryptValue(ctx context.Context, ciphertext string) (string, error)
}
