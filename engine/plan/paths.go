package plan

import (
	"sort"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// ChangedPaths returns, sorted, the paths of the properties under keys
// whose values differ between olds and news, as deep as both sides are
// maps or lists: "port", "tags.env", "items[0]". A key whose values compare
// equal (the plugin saw a change the values do not show) is listed itself.
func ChangedPaths(olds, news resource.PropertyMap, keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	var out []string
	for _, k := range keys {
		n := len(out)
		o, inOld := olds[k]
		v, inNew := news[k]
		if inOld && inNew {
			out = valuePaths(o, v, pathKey("", k), out)
		}
		if len(out) == n {
			out = append(out, pathKey("", k))
		}
	}
	sort.Strings(out)
	return out
}

// valuePaths appends the paths under path where a and b differ.
func valuePaths(a, b any, path string, out []string) []string {
	if x, ok := a.(resource.PropertyMap); ok {
		a = map[string]any(x)
	}
	if y, ok := b.(resource.PropertyMap); ok {
		b = map[string]any(y)
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		for k, v := range x {
			if w, ok := y[k]; ok {
				out = valuePaths(v, w, pathKey(path, k), out)
			} else {
				out = append(out, pathKey(path, k))
			}
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				out = append(out, pathKey(path, k))
			}
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			out = valuePaths(x[i], y[i], path+"["+strconv.Itoa(i)+"]", out)
		}
		return out
	case resource.Secret:
		// A secret is one value: the keys inside it are secret too, so the
		// path ends at the secret.
		if y, ok := b.(resource.Secret); ok && resource.DeepEqual(x.Element, y.Element) {
			return out
		}
		return append(out, path)
	}
	if resource.DeepEqual(a, b) {
		return out
	}
	return append(out, path)
}

// pathKey appends key to path: ".key", or `["key"]` when the key holds
// characters that a path uses.
func pathKey(path, key string) string {
	if key == "" || strings.ContainsAny(key, `.[]"`) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// plannedPaths returns, sorted, the paths where actual differs from the
// planned value: an unknown planned value accepts anything (even no
// value); a known one must be equal, secrecy included. A property actual
// has and planned does not is a difference unless extraOK (a step whose
// inputs the plugin did not check: Step.Unchecked).
func plannedPaths(planned, actual resource.PropertyMap, extraOK bool) []string {
	var out []string
	for k, p := range planned {
		a, ok := actual[k]
		switch {
		case !ok && !isComputed(p):
			out = append(out, pathKey("", k))
		case ok:
			out = plannedValuePaths(p, a, pathKey("", k), out, extraOK)
		}
	}
	for k := range actual {
		if _, ok := planned[k]; !ok && !extraOK {
			out = append(out, pathKey("", k))
		}
	}
	sort.Strings(out)
	return out
}

// plannedValuePaths appends the paths under path where actual differs from
// the planned value p.
func plannedValuePaths(p, a any, path string, out []string, extraOK bool) []string {
	if x, ok := p.(resource.PropertyMap); ok {
		p = map[string]any(x)
	}
	if y, ok := a.(resource.PropertyMap); ok {
		a = map[string]any(y)
	}
	switch x := p.(type) {
	case resource.Computed:
		return out
	case resource.Secret:
		// The path ends at the secret (its keys are secret too); an unknown
		// inside it still accepts anything.
		if y, ok := a.(resource.Secret); ok && len(plannedValuePaths(x.Element, y.Element, path, nil, extraOK)) == 0 {
			return out
		}
		return append(out, path)
	case map[string]any:
		if y, ok := a.(map[string]any); ok {
			for _, sub := range plannedPaths(x, y, extraOK) {
				out = append(out, joinPath(path, sub))
			}
			return out
		}
	case []any:
		if y, ok := a.([]any); ok && len(x) == len(y) {
			for i := range x {
				out = plannedValuePaths(x[i], y[i], path+"["+strconv.Itoa(i)+"]", out, extraOK)
			}
			return out
		}
	case resource.ResourceReference:
		// A reference planned with an unknown ID (its resource was to be
		// created) accepts the ID it got.
		if y, ok := a.(resource.ResourceReference); ok && isComputed(x.ID) && x.URN == y.URN && x.PackageVersion == y.PackageVersion {
			return out
		}
		if resource.DeepEqual(p, a) {
			return out
		}
	default:
		if resource.DeepEqual(p, a) {
			return out
		}
	}
	return append(out, path)
}

// joinPath appends a sub-path (as plannedPaths returns it) to path.
func joinPath(path, sub string) string {
	if strings.HasPrefix(sub, "[") {
		return path + sub
	}
	return path + "." + sub
}

// isComputed reports whether v is an unknown value (possibly secret).
func isComputed(v any) bool {
	switch x := v.(type) {
	case resource.Computed:
		return true
	case resource.Secret:
		return isComputed(x.Element)
	}
	return false
}
