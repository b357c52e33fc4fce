package config

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// scalar returns key's value as a string (a secret's plaintext), and
// whether it is set.
func (s *Stack) scalar(ctx context.Context, key string, c *Crypter) (string, bool, error) {
	v, ok, err := s.Get(ctx, key, false, c)
	if err != nil || !ok {
		return "", ok, err
	}
	switch x := v.(type) {
	case string:
		return x, true, nil
	case Secret:
		return x.Reveal(), true, nil
	case nil:
		return "", false, nil
	}
	return "", true, fmt.Errorf("%s (line %d of %s) holds a structured value where a single value belongs", key, s.Line(key), s.Path)
}

// String returns key as a string.
func (s *Stack) String(ctx context.Context, key string, c *Crypter) (string, bool, error) {
	return s.scalar(ctx, key, c)
}

// Int returns key as a whole number.
func (s *Stack) Int(ctx context.Context, key string, c *Crypter) (int, bool, error) {
	v, ok, err := s.scalar(ctx, key, c)
	if err != nil || !ok {
		return 0, ok, err
	}
	n, convErr := strconv.Atoi(strings.TrimSpace(v))
	if convErr != nil {
		return 0, true, fmt.Errorf("%s (line %d of %s) must be a whole number, not %q", key, s.Line(key), s.Path, v)
	}
	return n, true, nil
}

// Float returns key as a number.
func (s *Stack) Float(ctx context.Context, key string, c *Crypter) (float64, bool, error) {
	v, ok, err := s.scalar(ctx, key, c)
	if err != nil || !ok {
		return 0, ok, err
	}
	f, convErr := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if convErr != nil {
		return 0, true, fmt.Errorf("%s (line %d of %s) must be a number, not %q", key, s.Line(key), s.Path, v)
	}
	return f, true, nil
}

// Bool returns key as true or false.
func (s *Stack) Bool(ctx context.Context, key string, c *Crypter) (bool, bool, error) {
	v, ok, err := s.scalar(ctx, key, c)
	if err != nil || !ok {
		return false, ok, err
	}
	b, convErr := strconv.ParseBool(strings.TrimSpace(v))
	if convErr != nil {
		return false, true, fmt.Errorf("%s (line %d of %s) must be true or false, not %q", key, s.Line(key), s.Path, v)
	}
	return b, true, nil
}

// Object returns key as a structured value (map or list).
func (s *Stack) Object(ctx context.Context, key string, c *Crypter) (any, bool, error) {
	v, ok, err := s.Get(ctx, key, false, c)
	if err != nil || !ok {
		return nil, ok, err
	}
	switch v.(type) {
	case map[string]any, []any:
		return v, true, nil
	}
	return nil, true, fmt.Errorf("%s (line %d of %s) must be an object or a list", key, s.Line(key), s.Path)
}

// Flatten renders a value as one string for validation and display: a
// list of scalars joins with commas; secrets stay Secret-redacted.
func Flatten(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case Secret:
		return x.Reveal()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Flatten(e)
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
