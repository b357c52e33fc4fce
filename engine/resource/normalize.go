package resource

import (
	"fmt"
	"reflect"
	"sort"
)

// Normalize converts a Go value into the property-value shape documented on
// PropertyMap: every integer and float becomes float64, slices become []any,
// maps with string keys become map[string]any. Secret and Computed are kept
// (a Secret's element is normalized too), and so are Asset, Archive and
// ResourceReference (pointers to them become values). It fails on values
// that have no property-value form, such as channels or functions.
func Normalize(v any) (any, error) { return MapErr(v, normalizeOne) }

// normalizeOne is the MapErr function of Normalize: it converts the Go
// values that are not property values yet and lets MapErr descend into
// those that are.
func normalizeOne(v any) (any, bool, error) {
	switch x := v.(type) {
	case nil, bool, float64, string, Computed, Asset, ResourceReference:
		return x, true, nil
	case Secret, Output, PropertyMap, map[string]any, []any:
		return nil, false, nil
	case Archive:
		return nil, false, checkMembers(x)
	case *Asset:
		return *x, true, nil
	case *ResourceReference:
		return *x, true, nil
	case *Archive:
		n, err := Normalize(*x)
		return n, true, err
	case int:
		return float64(x), true, nil
	case int64:
		return float64(x), true, nil
	case int32:
		return float64(x), true, nil
	case float32:
		return float64(x), true, nil
	case uint:
		return float64(x), true, nil
	case uint32:
		return float64(x), true, nil
	case uint64:
		return float64(x), true, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		l := make([]any, rv.Len())
		for i := range l {
			l[i] = rv.Index(i).Interface()
		}
		n, err := Normalize(l)
		return n, true, err
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, true, fmt.Errorf("a map with %s keys has no property value form; use string keys", rv.Type().Key())
		}
		m := make(map[string]any, rv.Len())
		for _, k := range rv.MapKeys() {
			m[k.String()] = rv.MapIndex(k).Interface()
		}
		n, err := Normalize(m)
		return n, true, err
	case reflect.String:
		return rv.String(), true, nil
	case reflect.Bool:
		return rv.Bool(), true, nil
	}
	return nil, true, fmt.Errorf("a value of type %T has no property value form", v)
}

// checkMembers fails when an asset archive has a member that is not an
// Asset or an Archive (or a pointer to one).
func checkMembers(a Archive) error {
	for k, v := range a.Assets {
		switch v.(type) {
		case Asset, Archive, *Asset, *Archive:
		default:
			return fmt.Errorf("archive member %q is %T: an archive holds only assets and archives", k, v)
		}
	}
	return nil
}

// DeepEqual reports whether two normalized property values are equal. A
// Secret equals another Secret with an equal element; Computed equals nothing,
// not even another Computed (an unknown value may differ from anything).
// Assets and archives with hashes are equal when their hashes are.
func DeepEqual(a, b any) bool {
	if y, ok := a.(PropertyMap); ok {
		a = map[string]any(y)
	}
	if y, ok := b.(PropertyMap); ok {
		b = map[string]any(y)
	}
	switch x := a.(type) {
	case Computed:
		return false
	case Secret:
		y, ok := b.(Secret)
		return ok && DeepEqual(x.Element, y.Element)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !DeepEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !DeepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case Asset:
		y, ok := b.(Asset)
		return ok && x.Equal(y)
	case Archive:
		y, ok := b.(Archive)
		return ok && x.Equal(y)
	case ResourceReference:
		y, ok := b.(ResourceReference)
		return ok && x.Equal(y)
	case Output:
		y, ok := b.(Output)
		return ok && x.Equal(y)
	}
	switch b.(type) {
	case Computed, Secret, map[string]any, []any, Asset, Archive, ResourceReference, Output:
		return false
	}
	return a == b
}

// ContainsComputed reports whether v holds a Computed value anywhere,
// counting a resource reference whose ID is unknown and an unknown Output.
func ContainsComputed(v any) bool {
	return !Walk(v, func(x any, _ bool) bool {
		switch y := x.(type) {
		case Computed:
			return false
		case ResourceReference:
			_, computed := y.ID.(Computed)
			return !computed
		case Output:
			return y.Known
		}
		return true
	})
}

// DiffKeys returns, sorted, the top-level keys whose values differ between
// olds and news, skipping the keys in ignore. Plugins use it for their Diff.
func DiffKeys(olds, news PropertyMap, ignore []string) []string {
	skip := make(map[string]bool, len(ignore))
	for _, k := range ignore {
		skip[k] = true
	}
	var changed []string
	for k, v := range news {
		if skip[k] {
			continue
		}
		if o, ok := olds[k]; !ok || !DeepEqual(o, v) {
			changed = append(changed, k)
		}
	}
	for k := range olds {
		if skip[k] {
			continue
		}
		if _, ok := news[k]; !ok {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	return changed
}
