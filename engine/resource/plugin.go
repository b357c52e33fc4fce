package resource

import (
	"context"
	"errors"
	"time"
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

// IdentityFunc computes, from a resource's type token and its checked
// inputs, the ID its plugin's Read takes, for plugins whose resources are
// named by their inputs (a Kubernetes object by namespace and name): ok is
// false when the inputs do not say. It lets a create interrupted before
// its plugin answered be read back and adopted, or found absent and made
// again, with no person's help. A plugin declares it (see the
// infrastructure providers' plugin specs); the engine knows no package by
// name.
type IdentityFunc func(typ string, inputs PropertyMap) (id string, ok bool)

// ErrOutcomeUnknown is matched (errors.Is) by the error of a Create,
// Update or Delete whose plugin stopped before answering (it crashed or
// its connection broke): the change may or may not have been made, so the
// engine keeps the operation pending and the next run reads it back.
var ErrOutcomeUnknown = errors.New("the plugin stopped before answering, so whether the change was made is not known")

// CheckRequest asks a plugin to validate inputs.
type CheckRequest struct {
	URN  URN
	Type string
	Olds PropertyMap // previous inputs; nil on create (sent as an empty map)
	News PropertyMap // declared inputs; may hold Computed values during preview
	// RandomSeed is 32 random bytes the plugin may derive generated values
	// (auto-names, say) from; the engine keeps one per resource and step.
	RandomSeed []byte
}

// CheckFailure is one reason a plugin refused a resource's inputs.
type CheckFailure struct {
	Property string // the property at fault ("" for the inputs as a whole)
	Reason   string
}

// CheckFailuresError is the error of a Check (or CheckConfig) that refused
// the inputs; it lists every failure with its property.
type CheckFailuresError struct {
	Failures []CheckFailure
}

func (e *CheckFailuresError) Error() string {
	msg := ""
	for i, f := range e.Failures {
		if i > 0 {
			msg += "; "
		}
		if f.Property != "" {
			msg += "property " + f.Property + ": "
		}
		msg += f.Reason
	}
	if msg == "" {
		msg = "the plugin refused the inputs without saying why"
	}
	return msg
}

// DiffRequest asks a plugin what changed.
type DiffRequest struct {
	URN           URN
	Type          string
	ID            string
	OldInputs     PropertyMap
	OldOutputs    PropertyMap
	NewInputs     PropertyMap
	IgnoreChanges []string // property paths ("tags.Name", "rules[0].port") whose changes are ignored
}

// DiffResponse says which properties changed and how.
type DiffResponse struct {
	// Changed lists every changed top-level property (sorted); empty means
	// no change (unless Unknown).
	Changed []string
	// Replaces lists the changed properties that force a replacement.
	Replaces []string
	// DeleteBeforeReplace asks for the old resource to be deleted first.
	DeleteBeforeReplace bool
	// Unknown says the plugin could not tell (Pulumi's DIFF_UNKNOWN): the
	// engine compares the old and new inputs itself.
	Unknown bool
	// ChangedUnnamed says the resource changed although no property is
	// named (Pulumi's DIFF_SOME without keys): an update listing no
	// property.
	ChangedUnnamed bool
	// Detailed, when not nil, says how each changed property path changed
	// (Pulumi's detailedDiff); a replace kind forces a replacement.
	Detailed map[string]PropertyDiff
}

// DiffKind is how one property path changed.
type DiffKind int

// The kinds of a property change, as Pulumi numbers them.
const (
	DiffAdd DiffKind = iota
	DiffAddReplace
	DiffDelete
	DiffDeleteReplace
	DiffUpdate
	DiffUpdateReplace
)

// Replaces reports whether a change of this kind forces a replacement.
func (k DiffKind) Replaces() bool {
	return k == DiffAddReplace || k == DiffDeleteReplace || k == DiffUpdateReplace
}

// PropertyDiff is the change of one property path.
type PropertyDiff struct {
	Kind DiffKind
	// InputDiff says the difference is between old and new inputs (not old
	// outputs and new inputs).
	InputDiff bool
}

// CreateRequest asks a plugin to create a resource.
type CreateRequest struct {
	URN     URN
	Type    string
	Inputs  PropertyMap
	Preview bool
	Timeout time.Duration // 0: the plugin's default
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
	Inputs  PropertyMap // nil for an import
	Outputs PropertyMap // nil for an import
	Timeout time.Duration
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
	Timeout    time.Duration
	// IgnoreChanges are the property paths whose changes are ignored.
	IgnoreChanges []string
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
	Timeout time.Duration
}

// InitError is the error of a Create, Update or Read that made (or found)
// the resource but could not finish setting it up (Pulumi's
// ErrorResourceInitFailed): a partial success. The engine records the
// resource with this ID and these outputs, fails the step, and retries it
// with an update on the next run.
type InitError struct {
	ID      string
	Outputs PropertyMap
	Inputs  PropertyMap // nil: the inputs sent
	Reasons []string
}

func (e *InitError) Error() string {
	msg := "the resource was created but failed to initialize"
	for i, r := range e.Reasons {
		if i == 0 {
			msg += ": "
		} else {
			msg += "; "
		}
		msg += r
	}
	return msg
}

// Configurable is a Plugin whose default provider resource carries
// configuration: Pulumi's provider plugins. The engine gives its default
// provider the stack config keys "<package>:<key>" as inputs (strings;
// secure keys as secrets) plus "version", checks and diffs them, and
// configures the plugin before any resource call. Built-in plugins are not
// Configurable: their provider resources have no inputs.
type Configurable interface {
	Plugin
	// Version is the plugin's version ("": not known), which names the
	// default provider ("default_1_2_3").
	Version() string
	// CheckConfig validates the provider's inputs.
	CheckConfig(ctx context.Context, req CheckRequest) (PropertyMap, error)
	// DiffConfig compares the provider's recorded inputs with new ones; a
	// replacement replaces every resource of the provider.
	DiffConfig(ctx context.Context, req DiffRequest) (DiffResponse, error)
	// Configure returns the plugin configured with the provider's checked
	// inputs. Configurations with equal inputs may share one plugin
	// process; the engine makes every resource call of that provider on the
	// returned plugin. Inputs holding Computed values (preview) return a
	// plugin that answers without calling the provider, as Pulumi does.
	Configure(ctx context.Context, req ConfigureRequest) (Plugin, error)
}

// Starter is a Configurable whose plugin process can be started ahead of
// its first call, as Pulumi's engine loads the plugins a program needs
// before the program runs: the process then starts while the program does
// its own start-up, not when its first resource waits for it.
type Starter interface {
	// Start starts, without waiting, a process of the plugin for a
	// provider with these (unchecked) inputs, which later calls of that
	// provider use; a failed start is the error of those calls.
	Start(urn URN, inputs PropertyMap)
}

// ConfigureRequest configures a provider.
type ConfigureRequest struct {
	URN    URN
	ID     string
	Inputs PropertyMap
}

// MissingConfigError is the error of a Configure that lacks required keys.
type MissingConfigError struct {
	Package string
	Keys    []MissingKey
}

// MissingKey is one required config key ("region") with its description.
type MissingKey struct {
	Key         string
	Description string
}

func (e *MissingConfigError) Error() string {
	msg := "the " + e.Package + " provider needs config it does not have; set it with:"
	for _, k := range e.Keys {
		msg += "\n  runner config set " + e.Package + ":" + k.Key + " VALUE"
		if k.Description != "" {
			msg += "   # " + k.Description
		}
	}
	return msg
}

// ConfigureError is the error of a provider plugin that refused its
// configuration: its CheckConfig or Configure failed for a reason other
// than missing keys (a *MissingConfigError) or its death. It is a config
// error: the user fixes it by setting config or credentials.
type ConfigureError struct {
	// Package is the plugin's package (aws).
	Package string
	// Err is the plugin's refusal, its message with secrets masked.
	Err error
	// Help says what to set, appended to the message ("": nothing).
	Help string
}

func (e *ConfigureError) Error() string {
	msg := "the " + e.Package + " plugin refused its configuration: " + e.Err.Error()
	if e.Help != "" {
		msg += "\n" + e.Help
	}
	return msg
}

// Unwrap returns the plugin's refusal.
func (e *ConfigureError) Unwrap() error { return e.Err }

// Crypter encrypts and decrypts secret values for state at rest. The
// passphrase crypter of package config implements it; its ciphertexts are
// Pulumi's ("v1:<nonce>:<ciphertext>").
type Crypter interface {
	EncryptValue(ctx context.Context, plaintext string) (string, error)
	DecryptValue(ctx context.Context, ciphertext string) (string, error)
}

// Parameterization is a parameterized package (Pulumi's, such as a
// Terraform provider bridged at run time): package Name at Version, served
// by the plugin Base at BaseVersion once it is sent Parameterize with
// Value, the plugin's own description of the package.
type Parameterization struct {
	Base, BaseVersion string
	Name, Version     string
	Value             []byte
}
