package resource

import (
	"fmt"
	"strconv"
	"strings"
)

// PropertyPath is a parsed property path, Pulumi's syntax: keys joined by
// dots, list indexes in brackets, and keys holding path characters quoted
// in brackets: "tags.Name", "rules[0].port", `labels["app.kubernetes.io/name"]`.
// Each element is a string (a map key) or an int (a list index).
type PropertyPath []any

// ParsePropertyPath parses s, or says where it is malformed.
func ParsePropertyPath(s string) (PropertyPath, error) {
	var p PropertyPath
	bad := func(i int, why string) (PropertyPath, error) {
		return nil, fmt.Errorf("property path %q is malformed at character %d: %s", s, i+1, why)
	}
	i := 0
	for i < len(s) {
		switch {
		case s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if i+1 < len(s) && s[i+1] == '"' {
				q, err := strconv.QuotedPrefix(s[i+1:])
				if err != nil {
					return bad(i, "an unterminated quoted key")
				}
				key, _ := strconv.Unquote(q)
				end = i + 1 + len(q)
				if end >= len(s) || s[end] != ']' {
					return bad(end, `a quoted key must be followed by "]"`)
				}
				p, i = append(p, key), end+1
			} else {
				if end < 0 {
					return bad(i, `"[" without "]"`)
				}
				n, err := strconv.Atoi(s[i+1 : i+end])
				if err != nil || n < 0 {
					return bad(i, "a list index must be a number (quote a key: [\"key\"]; wildcards are not supported)")
				}
				p, i = append(p, n), i+end+1
			}
		case s[i] == '.' && len(p) > 0:
			i++
			fallthrough
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i {
				return bad(i, "an empty key")
			}
			if s[i:j] == "*" {
				return bad(i, "wildcards are not supported")
			}
			p, i = append(p, s[i:j]), j
		}
	}
	if len(p) == 0 {
		return bad(0, "an empty path")
	}
	return p, nil
}

// Get returns the value at the path in m (looking through secrets), and
// whether there is one.
func (p PropertyPath) Get(m PropertyMap) (any, bool) {
	var v any = map[string]any(m)
	for _, el := range p {
		v, _ = Unsecret(v)
		switch k := el.(type) {
		case string:
			obj, ok := asObject(v)
			if !ok {
				return nil, false
			}
			if v, ok = obj[k]; !ok {
				return nil, false
			}
		case int:
			list, ok := v.([]any)
			if !ok || k >= len(list) {
				return nil, false
			}
			v = list[k]
		}
	}
	return v, true
}

// Set puts v at the path in m, copying (never changing) the maps and lists
// it passes through below the top level and creating the missing maps. It
// returns false, changing nothing, when the path goes through a value that
// is not a map or list or past a list's end.
func (p PropertyPath) Set(m PropertyMap, v any) bool {
	out, ok := setPath(map[string]any(m), p, v, false)
	if ok {
		for k, val := range out.(map[string]any) {
			m[k] = val
		}
	}
	return ok
}

// Delete removes the value at the path in m (a list element becomes null),
// copying what it passes through as Set does.
func (p PropertyPath) Delete(m PropertyMap) {
	if len(p) == 1 {
		if k, ok := p[0].(string); ok {
			delete(m, k)
			return
		}
	}
	if _, ok := p.Get(m); !ok {
		return
	}
	if out, ok := setPath(map[string]any(m), p, nil, true); ok {
		om := out.(map[string]any)
		for k := range m {
			if _, kept := om[k]; !kept {
				delete(m, k)
			}
		}
		for k, val := range om {
			m[k] = val
		}
	}
}

// setPath returns a copy of cur with v at path (or the last element
// removed, when del), or false when the path cannot be followed.
func setPath(cur any, path PropertyPath, v any, del bool) (any, bool) {
	if len(path) == 0 {
		return v, true
	}
	if s, ok := cur.(Secret); ok {
		inner, ok := setPath(s.Element, path, v, del)
		return Secret{Element: inner}, ok
	}
	switch k := path[0].(type) {
	case string:
		obj, ok := asObject(cur)
		if cur == nil {
			obj, ok = map[string]any{}, true
		}
		if !ok {
			return nil, false
		}
		out := make(map[string]any, len(obj)+1)
		for key, val := range obj {
			out[key] = val
		}
		if del && len(path) == 1 {
			delete(out, k)
			return out, true
		}
		next, ok := setPath(obj[k], path[1:], v, del)
		if !ok {
			return nil, false
		}
		out[k] = next
		return out, true
	case int:
		list, ok := cur.([]any)
		if !ok || k >= len(list) {
			return nil, false
		}
		out := append([]any(nil), list...)
		next, ok := setPath(list[k], path[1:], v, del)
		if !ok {
			return nil, false
		}
		out[k] = next
		return out, true
	}
	return nil, false
}

// asObject returns v as a map, if it is one.
func asObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case PropertyMap:
		return x, true
	}
	return nil, false
}
