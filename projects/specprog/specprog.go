// Package specprog is a project program read from a JSON file: the
// resources to declare, their inputs and options, and the stack outputs.
// It lets end-to-end tests and benchmarks drive any resource plugin
// through the real CLI by editing a file between runs. A missing file
// declares nothing.
//
// Inputs are JSON; an object with one of these keys is a special value:
//
//	{"$secret": v}             v, secret
//	{"$output": "res.prop"}    an output of a resource declared earlier
//	{"$id": "res"}             the ID of a resource declared earlier
//	{"$ref": "res"}            a reference to a resource declared earlier
//	{"$stack": "project.out"}  a stack output of another project
//	{"$config": "ns:key"}      a stack config value
//	{"$repeat": ["ab", n]}     the string repeated n times (large payloads)
package specprog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine"
)

// Spec is the content of a project's spec file.
type Spec struct {
	Resources []ResourceSpec `json:"resources"`
	// Count repeats every resource Count times (names get "-<i>" appended;
	// 0 or 1: once), for benchmarks.
	Count   int            `json:"count,omitempty"`
	Outputs map[string]any `json:"outputs,omitempty"`
}

// ResourceSpec is one declared resource.
type ResourceSpec struct {
	Name    string         `json:"name"`
	Type    string         `json:"type"`
	Inputs  map[string]any `json:"inputs,omitempty"`
	Options Options        `json:"options,omitempty"`
}

// Options are the resource options a spec may set.
type Options struct {
	DependsOn           []string `json:"dependsOn,omitempty"`
	Parent              string   `json:"parent,omitempty"`
	Protect             bool     `json:"protect,omitempty"`
	DeleteBeforeReplace bool     `json:"deleteBeforeReplace,omitempty"`
	IgnoreChanges       []string `json:"ignoreChanges,omitempty"`
	SecretOutputs       []string `json:"additionalSecretOutputs,omitempty"`
	Import              string   `json:"import,omitempty"`
	Timeouts            Timeouts `json:"customTimeouts,omitempty"`
}

// Timeouts are a resource's custom timeouts, as Go durations ("2s").
type Timeouts struct {
	Create string `json:"create,omitempty"`
	Update string `json:"update,omitempty"`
	Delete string `json:"delete,omitempty"`
}

// Load reads a spec file; a missing file is an empty spec.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Spec{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the program spec %s: %w", path, err)
	}
	var s Spec
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("the program spec %s is not valid JSON: %w", path, err)
	}
	return &s, nil
}

// Program returns the program that reads the spec file at path when it runs.
func Program(path string) engine.Program {
	return func(ctx *engine.Context) error {
		s, err := Load(path)
		if err != nil {
			return err
		}
		return s.declare(ctx)
	}
}

// declare declares the spec's resources and outputs on ctx.
func (s *Spec) declare(ctx *engine.Context) error {
	b := &builder{ctx: ctx, byName: map[string]*engine.Resource{}}
	n := max(s.Count, 1)
	for i := 0; i < n; i++ {
		for _, r := range s.Resources {
			name := r.Name
			if s.Count > 1 {
				name = fmt.Sprintf("%s-%d", r.Name, i)
			}
			if err := b.declare(name, r); err != nil {
				return err
			}
		}
	}
	for k, v := range s.Outputs {
		out, err := b.value(v)
		if err != nil {
			return fmt.Errorf("output %s: %w", k, err)
		}
		ctx.Export(k, out)
	}
	return nil
}

type builder struct {
	ctx    *engine.Context
	byName map[string]*engine.Resource
}

func (b *builder) declare(name string, r ResourceSpec) error {
	inputs := engine.Inputs{}
	for k, v := range r.Inputs {
		x, err := b.value(v)
		if err != nil {
			return fmt.Errorf("resource %s, input %s: %w", name, k, err)
		}
		inputs[k] = x
	}
	opts, err := b.options(r.Options)
	if err != nil {
		return fmt.Errorf("resource %s: %w", name, err)
	}
	b.byName[name] = b.ctx.Resource(r.Type, name, inputs, opts...)
	return nil
}

func (b *builder) resource(name string) (*engine.Resource, error) {
	r, ok := b.byName[name]
	if !ok {
		return nil, fmt.Errorf("no resource %q is declared before this one", name)
	}
	return r, nil
}

func (b *builder) options(o Options) ([]engine.ResourceOption, error) {
	var opts []engine.ResourceOption
	for _, d := range o.DependsOn {
		r, err := b.resource(d)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.DependsOn(r))
	}
	if o.Parent != "" {
		r, err := b.resource(o.Parent)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.Parent(r))
	}
	if o.Protect {
		opts = append(opts, engine.Protect(true))
	}
	if o.DeleteBeforeReplace {
		opts = append(opts, engine.DeleteBeforeReplace(true))
	}
	if len(o.IgnoreChanges) > 0 {
		opts = append(opts, engine.IgnoreChanges(o.IgnoreChanges...))
	}
	if len(o.SecretOutputs) > 0 {
		opts = append(opts, engine.AdditionalSecretOutputs(o.SecretOutputs...))
	}
	more, err := extraOptions(o)
	return append(opts, more...), err
}

// parseDuration reads an optional Go duration.
func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("custom timeout %q is not a duration such as 2s: %w", s, err)
	}
	return d, nil
}

// value turns a JSON value of the spec into an input value.
func (b *builder) value(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			m, err := b.value(e)
			if err != nil {
				return nil, err
			}
			out[i] = m
		}
		return out, nil
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				if strings.HasPrefix(k, "$") {
					return b.special(k, arg)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			m, err := b.value(e)
			if err != nil {
				return nil, err
			}
			out[k] = m
		}
		return out, nil
	}
	return v, nil
}

func (b *builder) special(k string, arg any) (any, error) {
	str, _ := arg.(string)
	switch k {
	case "$secret":
		inner, err := b.value(arg)
		if err != nil {
			return nil, err
		}
		return engine.Secret(inner), nil
	case "$output":
		res, prop, ok := strings.Cut(str, ".")
		if !ok {
			return nil, fmt.Errorf(`$output wants "resource.property", not %q`, str)
		}
		r, err := b.resource(res)
		if err != nil {
			return nil, err
		}
		return r.Output(prop), nil
	case "$id":
		r, err := b.resource(str)
		if err != nil {
			return nil, err
		}
		return r.ID(), nil
	case "$stack":
		proj, out, ok := strings.Cut(str, ".")
		if !ok {
			return nil, fmt.Errorf(`$stack wants "project.output", not %q`, str)
		}
		return b.ctx.StackReference(proj).Output(out), nil
	case "$config":
		out, ok := b.ctx.Config(str)
		if !ok {
			return nil, nil
		}
		return out, nil
	case "$repeat":
		parts, _ := arg.([]any)
		if len(parts) != 2 {
			return nil, fmt.Errorf(`$repeat wants ["text", count]`)
		}
		s, _ := parts[0].(string)
		n, _ := parts[1].(float64)
		return strings.Repeat(s, int(n)), nil
	}
	return b.valueKind(k, arg)
}
