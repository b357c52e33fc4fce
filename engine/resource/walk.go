package resource

import (
	"fmt"
	"sort"
)

// Walk calls visit for v and then for every value nested inside it, depth
// first: the entries of a map[string]any or PropertyMap, the elements of a
// []any, the element of a Secret or of a known Output, the members of an
// Archive. secret says that the value lies inside a Secret (or a secret
// Output). visit returns whether to go on; Walk returns false when a visit
// ended the walk.
func Walk(v any, visit func(v any, secret bool) bool) bool {
	return walk(v, false, visit)
}

func walk(v any, secret bool, visit func(any, bool) bool) bool {
	if !visit(v, secret) {
		return false
	}
	switch x := v.(type) {
	case Secret:
		return walk(x.Element, true, visit)
	case Output:
		return !x.Known || walk(x.Element, secret || x.Secret, visit)
	case map[string]any:
		for _, e := range x {
			if !walk(e, secret, visit) {
				return false
			}
		}
	case PropertyMap:
		for _, e := range x {
			if !walk(e, secret, visit) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !walk(e, secret, visit) {
				return false
			}
		}
	case Archive:
		for _, e := range x.Assets {
			if !walk(e, secret, visit) {
				return false
			}
		}
	}
	return true
}

// Map returns v with values replaced by fn: fn is called for v first, and
// when it reports done, what it returns stands for v. Otherwise a map (a
// PropertyMap becomes a map[string]any, a nil one an empty one), a list, a
// Secret or an asset Archive is rebuilt from its mapped elements, and any
// other value is kept.
// v is never changed.
func Map(v any, fn func(v any) (out any, done bool)) any {
	out, _ := MapErr(v, func(x any) (any, bool, error) {
		o, done := fn(x)
		return o, done, nil
	})
	return out
}

// MapErr is Map with a function that may fail: the first error ends the
// walk, prefixed with where it happened ("key: ", "[index]: ").
func MapErr(v any, fn func(v any) (out any, done bool, err error)) (any, error) {
	out, done, err := fn(v)
	if done || err != nil {
		return out, err
	}
	switch x := v.(type) {
	case Secret:
		e, err := MapErr(x.Element, fn)
		if err != nil {
			return nil, err
		}
		return Secret{Element: e}, nil
	case Output:
		if !x.Known {
			return x, nil
		}
		e, err := MapErr(x.Element, fn)
		if err != nil {
			return nil, err
		}
		x.Element = e
		return x, nil
	case PropertyMap:
		return mapEntries(x, fn)
	case map[string]any:
		return mapEntries(x, fn)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			m, err := MapErr(e, fn)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = m
		}
		return out, nil
	case Archive:
		if x.Assets == nil {
			return x, nil
		}
		m, err := mapEntries(x.Assets, fn)
		if err != nil {
			return nil, err
		}
		x.Assets = m.(map[string]any)
		return x, nil
	}
	return v, nil
}

func mapEntries(m map[string]any, fn func(any) (any, bool, error)) (any, error) {
	out := make(map[string]any, len(m))
	for k, e := range m {
		v, err := MapErr(e, fn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// ContainsSecret reports whether v holds a Secret (or a secret Output)
// anywhere.
func ContainsSecret(v any) bool {
	return !Walk(v, func(x any, _ bool) bool {
		switch y := x.(type) {
		case Secret:
			return false
		case Output:
			return !y.Secret
		}
		return true
	})
}

// UnsecretDeep returns v with every Secret wrapper removed, and whether it
// had any. A value without secrets is returned as it is.
func UnsecretDeep(v any) (any, bool) {
	if !ContainsSecret(v) {
		return v, false
	}
	return Map(v, func(x any) (any, bool) {
		if s, ok := x.(Secret); ok {
			plain, _ := UnsecretDeep(s.Element)
			return plain, true
		}
		return nil, false
	}), true
}

// Copy returns a copy of m (its values shared) with room for extra more
// properties.
func (m PropertyMap) Copy(extra int) PropertyMap {
	out := make(PropertyMap, len(m)+extra)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// DeepCopy returns a copy of v whose maps, lists and secrets are copied
// at every depth (a nil map stays nil); other values are immutable and
// shared.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopy(e)
		}
		return out
	case PropertyMap:
		if x == nil {
			return x
		}
		return PropertyMap(DeepCopy(map[string]any(x)).(map[string]any))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	case Secret:
		return Secret{Element: DeepCopy(x.Element)}
	case Output:
		x.Element = DeepCopy(x.Element)
		x.Dependencies = append([]URN(nil), x.Dependencies...)
		return x
	}
	return v
}

// Known reports whether the property key holds no unknown (Computed) value.
func (m PropertyMap) Known(key string) bool { return !ContainsComputed(m[key]) }

// SortedKeys returns the keys of m, sorted.
func (m PropertyMap) SortedKeys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
