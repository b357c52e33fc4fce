package program

import (
	"github.com/runnerhq/runner/engine/resource"
)

// Inputs are a resource's declared input properties. Values may be plain Go
// values or Outputs, nested in maps and slices.
type Inputs map[string]any

// depSet collects the resources a value depends on, without duplicates.
type depSet struct {
	list []*Resource
	seen map[*Resource]bool
}

func (s *depSet) add(rs ...*Resource) {
	for _, r := range rs {
		if s.seen == nil {
			s.seen = make(map[*Resource]bool)
		}
		if !s.seen[r] {
			s.seen[r] = true
			s.list = append(s.list, r)
		}
	}
}

// collectDeps appends to deps the resources that the Outputs inside v come
// from.
func collectDeps(v any, deps []*Resource) []*Resource {
	s := depSet{list: deps}
	for _, r := range deps {
		if s.seen == nil {
			s.seen = make(map[*Resource]bool)
		}
		s.seen[r] = true
	}
	walkDeps(v, &s)
	return s.list
}

func walkDeps(v any, s *depSet) {
	resource.Walk(v, func(x any, _ bool) bool {
		switch y := x.(type) {
		case *Resource:
			s.add(y)
		case Output:
			s.add(y.resources()...)
		case Inputs:
			walkDeps(map[string]any(y), s)
		case []Output:
			for _, e := range y {
				s.add(e.resources()...)
			}
		case map[string]Output:
			for _, e := range y {
				s.add(e.resources()...)
			}
		}
		return true
	})
}

// resolveValue turns v into a normalized property value: Outputs become
// their values (resource.Secret when secret, resource.Computed when
// unknown), resources references to them (resource.ResourceReference), Go
// values are normalized.
func resolveValue(v any) (any, error) { return resource.MapErr(v, resolveOne) }

// resolveOne is the resource.MapErr function of resolveValue: it resolves
// what a program may put in its inputs beyond property values, and
// normalizes plain values.
func resolveOne(v any) (any, bool, error) {
	switch x := v.(type) {
	case Output:
		out, err := x.get()
		if err != nil || !out.known {
			return resource.Computed{}, true, err
		}
		pv, err := resolveValue(out.value)
		if out.secret && err == nil {
			pv = resource.Secret{Element: pv}
		}
		return pv, true, err
	case *Resource:
		ref, err := reference(x)
		return ref, true, err
	case Inputs:
		pv, err := resolveValue(map[string]any(x))
		return pv, true, err
	case map[string]Output:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		pv, err := resolveValue(m)
		return pv, true, err
	case []Output:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = e
		}
		pv, err := resolveValue(l)
		return pv, true, err
	case resource.Secret:
		e, err := resolveValue(x.Element)
		if s, ok := e.(resource.Secret); ok || err != nil {
			return s, true, err
		}
		return resource.Secret{Element: e}, true, nil
	case map[string]any, resource.PropertyMap, []any:
		return nil, false, nil
	}
	pv, err := resource.Normalize(v)
	return pv, true, err
}
