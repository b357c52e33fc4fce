package program

import (
	"errors"
	"fmt"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
)

// Output is a promise of a value that becomes known while the engine runs:
// a resource's output, a stack reference's output, a config value, or a
// value derived from others with Apply or All. Using an Output in a
// resource's inputs makes that resource depend on the resources the Output
// comes from. The zero Output is a known nil.
type Output struct{ p *promise }

// outcome is a resolved Output: its plain value (secrets unwrapped), whether
// it is known (false during preview for values not yet decided) and whether
// it is secret.
type outcome struct {
	value  any
	known  bool
	secret bool
}

// promise computes an Output's outcome once every resource it depends on is
// done, and remembers it.
type promise struct {
	deps []*Resource
	eval func() (outcome, error)

	mu   sync.Mutex
	done bool
	out  outcome
	err  error
}

func newOutput(deps []*Resource, eval func() (outcome, error)) Output {
	return Output{p: &promise{deps: deps, eval: eval}}
}

// errNotReady says an Output was needed before the resources it comes from
// were done; it happens when Apply returns an Output of a resource that the
// consumer does not depend on.
var errNotReady = errors.New("the value is not ready: it comes from a resource that has not been processed yet; add it to DependsOn")

// get resolves the Output. It never blocks: it fails when a resource the
// Output comes from is not done yet.
func (o Output) get() (outcome, error) {
	if o.p == nil {
		return outcome{known: true}, nil
	}
	p := o.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.out, p.err
	}
	for _, r := range p.deps {
		if !r.isDone() {
			return outcome{}, fmt.Errorf("reading an output of %s: %w", r.urn, errNotReady)
		}
	}
	p.out, p.err = p.eval()
	p.done = true
	return p.out, p.err
}

// resources returns the resources the Output depends on.
func (o Output) resources() []*Resource {
	if o.p == nil {
		return nil
	}
	return o.p.deps
}

// String keeps an Output's value out of formatted text.
func (Output) String() string { return "Output" }

// Apply derives a new Output by calling fn with this Output's value once it
// is known. During preview, when the value is unknown, fn is not called and
// the result is unknown too. A secret value stays secret: the result is
// secret. fn may return a plain value, a resource.Secret (the result becomes
// secret) or another Output (flattened). Creating resources inside fn is not
// supported.
func (o Output) Apply(fn func(v any) (any, error)) Output {
	return newOutput(o.resources(), func() (outcome, error) {
		in, err := o.get()
		if err != nil || !in.known {
			return in, err
		}
		v, err := fn(in.value)
		if err != nil {
			return outcome{}, fmt.Errorf("applying a function to an output: %w", err)
		}
		out, err := toOutcome(v)
		if err != nil {
			return outcome{}, err
		}
		out.secret = out.secret || in.secret
		return out, nil
	})
}

// toOutcome turns the value returned by an Apply function into an outcome.
func toOutcome(v any) (outcome, error) {
	switch x := v.(type) {
	case Output:
		return x.get()
	case resource.Secret:
		out, err := toOutcome(x.Element)
		out.secret = true
		return out, err
	case resource.Computed:
		return outcome{}, nil
	}
	plain, secret := resource.UnsecretDeep(v)
	if resource.ContainsComputed(plain) {
		return outcome{secret: secret}, nil
	}
	return outcome{value: plain, known: true, secret: secret}, nil
}

// All combines outputs into one whose value is a []any of their values, in
// order. It is unknown when any of them is unknown and secret when any of
// them is secret.
func All(outs ...Output) Output {
	var deps []*Resource
	for _, o := range outs {
		deps = appendUnique(deps, o.resources()...)
	}
	return newOutput(deps, func() (outcome, error) {
		res := outcome{value: make([]any, len(outs)), known: true}
		for i, o := range outs {
			out, err := o.get()
			if err != nil {
				return outcome{}, err
			}
			res.known = res.known && out.known
			res.secret = res.secret || out.secret
			res.value.([]any)[i] = out.value
		}
		if !res.known {
			res.value = nil
		}
		return res, nil
	})
}

// Val returns an Output of v. v may be a plain value or a structure of maps
// and slices holding Outputs (such as Inputs); the result depends on every
// Output inside and is unknown or secret when any of them is.
func Val(v any) Output {
	if o, ok := v.(Output); ok {
		return o
	}
	deps := collectDeps(v, nil)
	return newOutput(deps, func() (outcome, error) {
		pv, err := resolveValue(v)
		if err != nil {
			return outcome{}, err
		}
		return toOutcome(pv)
	})
}

// Secret returns an Output of v marked secret (v may be an Output).
func Secret(v any) Output {
	in := Val(v)
	return newOutput(in.resources(), func() (outcome, error) {
		out, err := in.get()
		out.secret = true
		return out, err
	})
}

func appendUnique(dst []*Resource, rs ...*Resource) []*Resource {
	for _, r := range rs {
		found := false
		for _, d := range dst {
			if d == r {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, r)
		}
	}
	return dst
}
