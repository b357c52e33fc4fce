package resource

import (
	"fmt"
	"math"
)

// Unsecret returns v without its Secret wrapper, and whether it had one.
func Unsecret(v any) (any, bool) {
	if s, ok := v.(Secret); ok {
		return s.Element, true
	}
	return v, false
}

// String returns the string property key (unwrapping a secret), def when it is
// absent or null, and an error naming the property when it has another type.
func (m PropertyMap) String(key, def string) (string, error) {
	v, _ := Unsecret(m[key])
	switch x := v.(type) {
	case nil:
		return def, nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("property %q must be a string, not %s", key, typeName(v))
}

// Int returns the integer property key, def when absent or null.
func (m PropertyMap) Int(key string, def int) (int, error) {
	v, _ := Unsecret(m[key])
	switch x := v.(type) {
	case nil:
		return def, nil
	case float64:
		if x != math.Trunc(x) {
			return 0, fmt.Errorf("property %q must be a whole number, not %v", key, x)
		}
		return int(x), nil
	case int:
		return x, nil
	}
	return 0, fmt.Errorf("property %q must be a number, not %s", key, typeName(v))
}

// Bool returns the boolean property key, def when absent or null.
func (m PropertyMap) Bool(key string, def bool) (bool, error) {
	v, _ := Unsecret(m[key])
	switch x := v.(type) {
	case nil:
		return def, nil
	case bool:
		return x, nil
	}
	return false, fmt.Errorf("property %q must be true or false, not %s", key, typeName(v))
}

// StringMap returns the property key as a map of strings (absent: nil).
func (m PropertyMap) StringMap(key string) (map[string]string, error) {
	v, _ := Unsecret(m[key])
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("property %q must be an object of strings, not %s", key, typeName(v))
	}
	out := make(map[string]string, len(obj))
	for k, e := range obj {
		e, _ = Unsecret(e)
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("property %q: key %q must be a string, not %s", key, k, typeName(e))
		}
		out[k] = s
	}
	return out, nil
}

// StringList returns the property key as a list of strings (absent: nil).
func (m PropertyMap) StringList(key string) ([]string, error) {
	v, _ := Unsecret(m[key])
	if v == nil {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("property %q must be a list of strings, not %s", key, typeName(v))
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		e, _ = Unsecret(e)
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("property %q: item %d must be a string, not %s", key, i, typeName(e))
		}
		out[i] = s
	}
	return out, nil
}

// IsSecret reports whether the property key holds a Secret.
func (m PropertyMap) IsSecret(key string) bool {
	_, ok := m[key].(Secret)
	return ok
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, int:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case Computed:
		return "an unknown value"
	case Asset:
		return "an asset"
	case Archive:
		return "an archive"
	case ResourceReference:
		return "a resource reference"
	case Output:
		return "an output value"
	}
	return fmt.Sprintf("%T", v)
}
