package source

import (
	"context"
	"errors"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Registration is one resource a program registers: the event a source
// feeds the engine. The engine decides its step when it arrives, runs it
// and answers with the resource's outputs.
type Registration struct {
	URN        resource.URN
	Type, Name string
	// Custom says a plugin manages the resource (false: a component, or
	// the root stack).
	Custom bool
	// Parent is the parent's URN ("" only for the root stack).
	Parent resource.URN
	// Inputs are the resolved inputs: secrets resource.Secret, values not
	// known yet (preview) resource.Computed. The engine does not change
	// them.
	Inputs resource.PropertyMap
	// InputsErr, when set, says why the source could not resolve the
	// inputs: the resource's step fails with it.
	InputsErr error
	// Dependencies are the resources it depends on (its inputs' and its
	// dependsOn), PropertyDependencies those of each input property.
	Dependencies         []resource.URN
	PropertyDependencies map[string][]resource.URN
	// Provider is the reference "<URN>::<ID>" of the explicit provider of
	// a custom resource ("": its package's default provider).
	Provider string
	// Version and PluginDownloadURL name the plugin the package's default
	// provider needs ("": whichever is installed; the default source).
	Version, PluginDownloadURL string
	// Parameterization is that of the parameterized package the program
	// registered (RegisterPackage) and names the resource's type by (its
	// packageRef); nil: none. Its default provider serves it.
	Parameterization *resource.Parameterization
	// The resource options.
	Protect, DeleteBeforeReplace, RetainOnDelete bool
	// DeleteBeforeReplaceSet says the program gave DeleteBeforeReplace,
	// which then overrides the plugin's wish.
	DeleteBeforeReplaceSet  bool
	IgnoreChanges           []string
	AdditionalSecretOutputs []string
	// ReplaceOnChanges are property paths whose change forces a
	// replacement.
	ReplaceOnChanges []string
	// ImportID is the ID of the real resource to adopt ("": none).
	ImportID string
	// ReadID is the ID of an existing resource the program reads (its
	// get; "": none): the resource is read through its plugin and recorded
	// as Pulumi records a read, external, which the stack never creates,
	// updates or deletes.
	ReadID   string
	Timeouts state.CustomTimeouts
	// Aliases are URNs the resource had before (renamed, moved under
	// another parent): its recorded state is found under them.
	Aliases []resource.URN
	// AliasSpecs are former identities the program gave as Pulumi's alias
	// specs (aliasSpecs): the engine resolves them into URNs as Pulumi's
	// does, with those its parent's former URN implies.
	AliasSpecs []resource.Alias
	// DeletedWith is the resource whose delete deletes this one too ("":
	// none): when both are deleted in one operation, this one's plugin is
	// not called (Pulumi's deletedWith).
	DeletedWith resource.URN
}

// Answer is what the engine answers a registration with, once its step
// has run.
type Answer struct {
	// ID is the resource's ID (IDKnown false while unknown, in a preview).
	ID      string
	IDKnown bool
	// Outputs are the resource's outputs (planned ones, with unknowns, in a
	// preview); secrets resource.Secret.
	Outputs resource.PropertyMap
	// Absent says what reading an output the outputs do not hold gives.
	Absent program.Absent
}

// ErrNotAttempted answers a registration that arrives after a step failed
// or the operation was canceled: its step is not run.
var ErrNotAttempted = errors.New("not attempted: an earlier step failed or the operation was canceled")

// Preflight is what a source knows before its first registration, so that
// the engine can check it before anything changes.
type Preflight struct {
	// URNs are every resource the program registers, when known up front
	// (nil: not known; a plan is then checked as registrations arrive).
	URNs []resource.URN
	// Packages are the packages whose default providers the program uses:
	// they are configured, and a refused configuration stops the operation,
	// before any step.
	Packages []Package
	// Explicit are the packages of the explicit providers the program
	// declares: their plugins must exist.
	Explicit []Package
}

// Sink is the engine as a source sees it. Its methods are safe for
// concurrent use; Register blocks until the step has run.
type Sink interface {
	// Preflight checks what the source knows up front (see Preflight); it
	// is called at most once, before any registration.
	Preflight(ctx context.Context, p Preflight) error
	// Register decides and runs the step of one resource and answers with
	// its outputs. The error says why the step failed (ErrNotAttempted
	// when it did not run).
	Register(ctx context.Context, r *Registration) (Answer, error)
	// RegisterOutputs records the outputs of a component or of the root
	// stack (the stack outputs).
	RegisterOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error
}

// SerialSink is a Sink that lets a source record each step itself: Step
// runs the step and returns what records it and gives the answer (nil when
// the step did not run). A source that records one at a time (on a walk's
// goroutine) spares the steps from contending for the record.
type SerialSink interface {
	Sink
	Step(ctx context.Context, r *Registration) (Recorder, error)
}

// Recorder records a step that has run and gives its answer.
type Recorder interface {
	Record() Answer
}

// Source feeds one run of a program to the engine.
type Source interface {
	// Run runs the program, feeding sink, and returns when it has ended:
	// nil when it ended cleanly (only then does the engine delete what it
	// did not register).
	Run(ctx context.Context, sink Sink) error
}
