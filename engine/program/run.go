package program

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// Env is what the engine gives one run of a program.
type Env struct {
	Project, Stack string
	// DryRun says the engine is previewing (Context.DryRun).
	DryRun bool
	// Config holds the stack config ("namespace:key" -> value; secrets as
	// resource.Secret).
	Config map[string]any
	// Log receives the program's log messages (nil: none).
	Log func(msg string)
	// StackOutputs reads the stack outputs of another project on this
	// stack, at most once per project and run: nil outputs without an error
	// when the project was never deployed; planned when they are the
	// outputs of the project's plan in this operation, which then name
	// every output the project has.
	StackOutputs func(project string) (outputs resource.PropertyMap, planned bool, err error)
	// Dir is the project directory: relative paths of file assets and
	// archives resolve against it ("": the current directory).
	Dir string
	// Recorded gives the outputs the state records for a resource, and
	// whether it has it (Context.Recorded; nil: none is recorded).
	Recorded func(urn resource.URN) (resource.PropertyMap, bool)
}

// Declarations are what one run of a program declared, for the engine to
// read and to record results in. Only Run makes them.
type Declarations struct {
	c    *Context
	dir  string // Env.Dir
	list []Declaration
	desc map[*Resource][]*Resource // descendantsOf's memo
}

// Declaration is a declared resource as the engine reads it.
type Declaration struct {
	URN  resource.URN
	Type string
	Name string
	// Custom says a plugin manages the resource (false: a component, or
	// the root stack, which is always declaration 0).
	Custom bool
	// Parent is the index of the parent's declaration (-1: none, the root
	// stack).
	Parent int
	// The resource options the program gave.
	Protect, DeleteBeforeReplace, RetainOnDelete bool
	// DeleteBeforeReplaceSet says the program gave DeleteBeforeReplace,
	// which then overrides the plugin's wish.
	DeleteBeforeReplaceSet                 bool
	IgnoreChanges, AdditionalSecretOutputs []string
	// ImportID is the ID of the real resource to adopt ("": none).
	ImportID string
	// Timeouts are the resource's custom timeouts (zero: none).
	Timeouts CustomTimeouts
	// Provider is the index of the declaration of the resource's explicit
	// provider (-1: the package's default provider).
	Provider int
}

// Run runs prog with env and returns what it declared. A program that
// fails, panics, or makes a declaration that is not valid returns an error.
func Run(ctx context.Context, env Env, prog Program) (ds *Declarations, err error) {
	c := newContext(ctx, &env)
	defer func() {
		if p := recover(); p != nil {
			ds, err = nil, fmt.Errorf("the program panicked: %v", p)
		}
	}()
	if err := prog(c); err != nil {
		c.seal()
		return nil, fmt.Errorf("running the program: %w", err)
	}
	if err := c.seal(); err != nil {
		return nil, fmt.Errorf("running the program: %w", err)
	}
	ds = &Declarations{c: c, dir: env.Dir, list: make([]Declaration, len(c.resources)), desc: make(map[*Resource][]*Resource)}
	for i, r := range c.resources {
		ds.list[i] = Declaration{
			URN: r.urn, Type: r.typ, Name: r.name, Custom: r.custom, Parent: -1, Provider: -1,
			Protect: r.opts.protect, DeleteBeforeReplace: r.opts.deleteBeforeReplace, RetainOnDelete: r.opts.retainOnDelete,
			IgnoreChanges: r.opts.ignoreChanges, AdditionalSecretOutputs: r.opts.additionalSecretOutputs,
			ImportID: r.opts.importID, Timeouts: r.opts.customTimeouts,
			DeleteBeforeReplaceSet: r.opts.deleteBeforeReplaceSet,
		}
		if r.parent != nil {
			ds.list[i].Parent = r.parent.index
		}
		if r.opts.provider != nil {
			ds.list[i].Provider = r.opts.provider.index
		}
	}
	return ds, nil
}

// List returns the declarations in declaration order, the root stack first.
// The engine must not change them.
func (ds *Declarations) List() []Declaration { return ds.list }

// Dependencies are what a declared resource depends on.
type Dependencies struct {
	// Waits are the indexes of the declarations the resource waits for,
	// besides its parent: those its inputs refer to, its DependsOn and, for
	// a DependsOn component, the component's descendants declared before
	// the resource. An index may repeat.
	Waits []int
	// URNs are the dependencies recorded in the state: those of its inputs,
	// then its DependsOn.
	URNs []resource.URN
	// Properties map each input property to the resources it refers to.
	Properties map[string][]resource.URN
}

// Dependencies returns the dependencies of declaration i. It fails when
// the inputs refer to a resource of another program. Not safe for
// concurrent use.
func (ds *Declarations) Dependencies(i int) (Dependencies, error) {
	r := ds.c.resources[i]
	inputDeps := collectDeps(map[string]any(r.inputs), nil)
	waits := make([]int, 0, len(inputDeps)+len(r.opts.dependsOn))
	for _, dep := range inputDeps {
		if dep.ctx != ds.c {
			return Dependencies{}, fmt.Errorf("%s refers to an output of %s, a resource of another program; use a stack reference", r.urn, dep.urn)
		}
		waits = append(waits, dep.index)
	}
	urns, waits := dependsOn(r, inputDeps, waits, ds.desc)
	return Dependencies{Waits: waits, URNs: urns, Properties: propertyDeps(r.inputs)}, nil
}

// Inputs resolves the inputs of declaration i once the resources they
// refer to are finished: Outputs become their values (resource.Secret when
// secret, resource.Computed when unknown).
func (ds *Declarations) Inputs(i int) (resource.PropertyMap, error) {
	v, err := ds.resolve(map[string]any(ds.c.resources[i].inputs))
	if err != nil {
		return nil, err
	}
	return resource.PropertyMap(v.(map[string]any)), nil
}

// resolve resolves v (resolveValue) and hashes the assets and archives in
// it, reading files relative to the project directory.
func (ds *Declarations) resolve(v any) (any, error) {
	r, err := resolveValue(v)
	if err != nil {
		return nil, err
	}
	return resource.EnsureHashes(r, ds.dir)
}

// Outputs resolves the stack outputs the program exported, once every
// resource is finished.
func (ds *Declarations) Outputs() (resource.PropertyMap, error) {
	outputs := make(resource.PropertyMap, len(ds.c.exports))
	for _, e := range ds.c.exports {
		v, err := ds.resolve(e.value)
		if err != nil {
			return nil, fmt.Errorf("resolving stack output %q: %w", e.name, err)
		}
		outputs[e.name] = v
	}
	return outputs, nil
}

// Finish records the result of declaration i: its ID (idKnown false while
// unknown), its outputs, or why it failed. The engine calls it (or
// FinishOutputs) once per declaration, before any resource that depends on
// it reads it. An output the outputs do not hold reads as null.
func (ds *Declarations) Finish(i int, id string, idKnown bool, outputs resource.PropertyMap, err error) {
	ds.c.resources[i].finish(id, idKnown, outputs, AbsentNull, err)
}

// FinishOutputs records the success of declaration i as Finish does, with
// what reading an output the outputs do not hold gives.
func (ds *Declarations) FinishOutputs(i int, id string, idKnown bool, outputs resource.PropertyMap, absent Absent) {
	ds.c.resources[i].finish(id, idKnown, outputs, absent, nil)
}

// Absent says what reading an output that a resource's outputs do not hold
// gives.
type Absent int

const (
	// AbsentNull: a known null (built-in plugins, whose resources' outputs
	// leave out what they do not have).
	AbsentNull Absent = iota
	// AbsentUnknown: an unknown value (a preview's outputs that a plugin
	// could not predict, such as one whose provider is not configured).
	AbsentUnknown
	// AbsentError: an error naming the outputs the resource has (a
	// provider plugin's, whose outputs name every output the resource has:
	// the program misspelled the name, or the plugin's schema has no such
	// output).
	AbsentError
)
