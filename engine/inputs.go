package engine

import (
	"fmt"

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
	switch x := v.(type) {
	case Output:
		s.add(x.resources()...)
	case Inputs:
		for _, e := range x {
			walkDeps(e, s)
		}
	case map[string]any:
		for _, e := range x {
			walkDeps(e, s)
		}
	case resource.PropertyMap:
		for _, e := range x {
			walkDeps(e, s)
		}
	case []any:
		for _, e := range x {
			walkDeps(e, s)
		}
	case []Output:
		for _, e := range x {
			s.add(e.resources()...)
		}
	case map[string]Output:
		for _, e := range x {
			s.add(e.resources()...)
		}
	case resource.Secret:
		walkDeps(x.Element, s)
	}
}

// resolveValue turns v into a normalized property value: Outputs become
// their values (resource.Secret when secret, resource.Computed when
// unknown), Go values are normalized.
func resolveValue(v any) (any, error) {
	switch x := v.(type) {
	case Output:
		out, err := x.get()
		if err != nil {
			return nil, err
		}
		if !out.known {
			return resource.Computed{}, nil
		}
		pv, err := resolveValue(out.value)
		if err != nil {
			return nil, err
		}
		if out.secret {
			return resource.Secret{Element: pv}, nil
		}
		return pv, nil
	case *Resource:
		return nil, fmt.Errorf("a resource (%s) cannot be a value; use its Output or ID", x.urn)
	case Inputs:
		return resolveMap(x)
	case map[string]any:
		return resolveMap(x)
	case resource.PropertyMap:
		return resolveMap(x)
	case map[string]Output:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		return resolveMap(m)
	case []any:
		return resolveSlice(x)
	case []Output:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = e
		}
		return resolveSlice(s)
	case resource.Secret:
		e, err := resolveValue(x.Element)
		if err != nil {
			return nil, err
		}
		if s, ok := e.(resource.Secret); ok {
			return s, nil
		}
		return resource.Secret{Element: e}, nil
	}
	return resource.Normalize(v)
}

func resolveMap(m map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, e := range m {
		pv, err := resolveValue(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = pv
	}
	return out, nil
}

func resolveSlice(s []any) ([]any, error) {
	out := make([]any, len(s))
	for i, e := range s {
		pv, err := resolveValue(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = pv
	}
	return out, nil
}

// unsecretDeep returns v with every resource.Secret wrapper removed, and
// whether it had any. A value without secrets is returned as it is.
func unsecretDeep(v any) (any, bool) {
	if !resource.ContainsSecret(v) {
		return v, false
	}
	return resource.Map(v, func(x any) (any, bool) {
		if s, ok := x.(resource.Secret); ok {
			plain, _ := unsecretDeep(s.Element)
			return plain, true
		}
		return nil, false
	}), true
}

// containsSecret reports whether v holds a resource.Secret anywhere.
func containsSecret(v any) bool { return resource.ContainsSecret(v) }
