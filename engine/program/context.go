package program

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/runnerhq/runner/engine/resource"
)

// Program declares a project's resources and stack outputs.
type Program func(ctx *Context) error

// Context is what a Program declares its resources through. It is meant
// for the Program's own goroutine; Apply functions must not call it.
type Context struct {
	ctx          context.Context
	project      string
	stack        string
	dryRun       bool
	config       map[string]any
	stackOutputs func(project string) (resource.PropertyMap, bool, error)
	log          func(string)
	recorded     func(resource.URN) (resource.PropertyMap, bool)

	mu        sync.Mutex
	sealed    bool
	root      *Resource
	resources []*Resource // declaration order, root first
	byURN     map[resource.URN]*Resource
	exports   []export
	errs      []error
	refs      map[string]*StackReference // guarded by mu
}

type export struct {
	name  string
	value any
}

func newContext(ctx context.Context, env *Env) *Context {
	c := &Context{
		ctx:          ctx,
		project:      env.Project,
		stack:        env.Stack,
		dryRun:       env.DryRun,
		config:       env.Config,
		stackOutputs: env.StackOutputs,
		log:          env.Log,
		recorded:     env.Recorded,
		byURN:        make(map[resource.URN]*Resource),
		refs:         make(map[string]*StackReference),
	}
	c.root = &Resource{
		ctx:  c,
		typ:  resource.RootStackType,
		name: env.Project + "-" + env.Stack,
		urn:  resource.RootURN(env.Project, env.Stack),
	}
	c.add(c.root)
	return c
}

// Project returns the project's name.
func (c *Context) Project() string { return c.project }

// Stack returns the stack's name.
func (c *Context) Stack() string { return c.stack }

// DryRun reports whether the engine is previewing (no side effects).
func (c *Context) DryRun() bool { return c.dryRun }

// Context returns the operation's context.Context.
func (c *Context) Context() context.Context { return c.ctx }

// Config returns the config value key ("namespace:name"; a key without a
// namespace is looked up in the project's namespace too) as an Output that
// is secret when the value is, and whether it is set.
func (c *Context) Config(key string) (Output, bool) {
	v, ok := c.config[key]
	if !ok && !strings.Contains(key, ":") {
		v, ok = c.config[c.project+":"+key]
	}
	if !ok {
		return Output{}, false
	}
	if s, isSecret := v.(resource.Secret); isSecret {
		return Secret(s.Element), true
	}
	return Val(v), true
}

// Log records an informational message in the project's log. Secret values
// (resource.Secret, Outputs) print redacted.
func (c *Context) Log(format string, args ...any) {
	if c.log != nil {
		c.log(fmt.Sprintf(format, args...))
	}
}

// Resource declares a custom resource of type typ (a type token such as
// "random:index/randomString:RandomString") named name.
func (c *Context) Resource(typ, name string, inputs Inputs, opts ...ResourceOption) *Resource {
	return c.register(typ, name, true, inputs, opts)
}

// Component declares a component resource: a group that parents others and
// has no plugin of its own.
func (c *Context) Component(typ, name string, opts ...ResourceOption) *Resource {
	return c.register(typ, name, false, nil, opts)
}

// Export sets the stack output name to value: an Output, a structure of
// maps and slices holding Outputs, or a plain value.
func (c *Context) Export(name string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sealed {
		c.errs = append(c.errs, fmt.Errorf("exporting %q: the program has already returned; outputs cannot be exported from an Apply", name))
		return
	}
	for i := range c.exports {
		if c.exports[i].name == name {
			c.exports[i].value = value
			return
		}
	}
	c.exports = append(c.exports, export{name: name, value: value})
}

func (c *Context) register(typ, name string, custom bool, inputs Inputs, opts []ResourceOption) *Resource {
	var o resourceOptions
	for _, opt := range opts {
		opt(&o)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	parent := o.parent
	if parent == nil {
		parent = c.root
	}
	r := &Resource{ctx: c, typ: typ, name: name, custom: custom, inputs: inputs, opts: o, parent: parent}
	r.urn = resource.NewURN(c.stack, c.project, parent.urn.QualifiedType(), typ, name)
	switch {
	case c.sealed:
		c.errs = append(c.errs, fmt.Errorf("declaring %s: the program has already returned; resources cannot be declared inside an Apply", r.urn))
		return r
	case name == "" || !strings.Contains(typ, ":"):
		c.errs = append(c.errs, fmt.Errorf("declaring a resource of type %q named %q: a resource needs a name and a type token of the form package:module:Type", typ, name))
		return r
	case c.byURN[r.urn] != nil:
		c.errs = append(c.errs, fmt.Errorf("declaring %s: a resource with this URN is already declared; give it another name", r.urn))
		return r
	case parent.ctx != c:
		c.errs = append(c.errs, fmt.Errorf("declaring %s: its parent belongs to another program", r.urn))
		return r
	case o.provider != nil && o.provider.ctx != c:
		c.errs = append(c.errs, fmt.Errorf("declaring %s: its provider %s belongs to another program; declare the provider in this one", r.urn, o.provider.urn))
		return r
	}
	c.add(r)
	return r
}

func (c *Context) add(r *Resource) {
	r.index = len(c.resources)
	c.resources = append(c.resources, r)
	c.byURN[r.urn] = r
	if r.parent != nil {
		r.parent.children = append(r.parent.children, r)
	}
}

// seal ends the declaration phase and returns the declaration errors.
func (c *Context) seal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sealed = true
	return errors.Join(c.errs...)
}

// Resource is a declared resource.
type Resource struct {
	ctx      *Context
	typ      string
	name     string
	urn      resource.URN
	custom   bool
	inputs   Inputs
	opts     resourceOptions
	parent   *Resource
	children []*Resource
	index    int

	// Set through Declarations.Finish before done is set.
	id      string
	idKnown bool
	outputs resource.PropertyMap
	absent  Absent
	err     error
	done    atomic.Bool
}

// URN returns the resource's URN.
func (r *Resource) URN() resource.URN { return r.urn }

// Name returns the resource's name.
func (r *Resource) Name() string { return r.name }

// Type returns the resource's type token.
func (r *Resource) Type() string { return r.typ }

func (r *Resource) isDone() bool { return r.done.Load() }

// finish records the resource's result (Declarations.Finish).
func (r *Resource) finish(id string, idKnown bool, outputs resource.PropertyMap, absent Absent, err error) {
	r.id, r.idKnown, r.outputs, r.absent, r.err = id, idKnown, outputs, absent, err
	r.done.Store(true)
}

// Output returns the output property key of the resource. It is unknown
// during preview when the plugin cannot predict it, and secret when the
// resource records it as secret. An output the resource does not have is
// an error naming those it has for a provider plugin's resource (whose
// outputs, predicted ones too, name every output it has), null for a
// built-in plugin's.
func (r *Resource) Output(key string) Output {
	return newOutput([]*Resource{r}, func() (outcome, error) {
		if r.err != nil {
			return outcome{}, fmt.Errorf("reading output %q of %s: %w", key, r.urn, r.err)
		}
		v, ok := r.outputs[key]
		if !ok {
			return r.absentOutput(key)
		}
		plain, secret := resource.UnsecretDeep(v)
		if resource.ContainsComputed(plain) {
			return outcome{secret: secret}, nil
		}
		return outcome{value: plain, known: true, secret: secret}, nil
	})
}

// ID returns the resource's ID (unknown during preview of a create).
func (r *Resource) ID() Output {
	return newOutput([]*Resource{r}, func() (outcome, error) {
		if r.err != nil {
			return outcome{}, fmt.Errorf("reading the ID of %s: %w", r.urn, r.err)
		}
		if !r.idKnown {
			return outcome{}, nil
		}
		return outcome{value: r.id, known: true}, nil
	})
}

// absentOutput is the outcome of reading an output the resource's outputs
// do not hold (Absent).
func (r *Resource) absentOutput(key string) (outcome, error) {
	switch r.absent {
	case AbsentUnknown:
		return outcome{}, nil
	case AbsentError:
		names := make([]string, 0, len(r.outputs))
		for k := range r.outputs {
			names = append(names, k)
		}
		sort.Strings(names)
		list := strings.Join(names, ", ")
		if list == "" {
			list = "(none)"
		}
		return outcome{}, fmt.Errorf("%s has no output %q; its outputs are: %s", r.urn, key, list)
	}
	return outcome{known: true}, nil
}
