package resource

import (
	"errors"
	"reflect"
	"sort"
	"testing"
)

func TestWalk(t *testing.T) {
	v := PropertyMap{
		"a": "plain",
		"b": Secret{Element: map[string]any{"c": "inner", "d": []any{"listed", Computed{}}}},
		"e": []any{1.0, map[string]any{"f": true}},
	}
	var plain, secret []string
	Walk(v, func(x any, inSecret bool) bool {
		if s, ok := x.(string); ok {
			if inSecret {
				secret = append(secret, s)
			} else {
				plain = append(plain, s)
			}
		}
		return true
	})
	sort.Strings(secret)
	if !reflect.DeepEqual(plain, []string{"plain"}) || !reflect.DeepEqual(secret, []string{"inner", "listed"}) {
		t.Errorf("plain %v, secret %v; want [plain] and [inner listed]", plain, secret)
	}
	visits := 0
	if Walk(v, func(any, bool) bool { visits++; return false }) || visits != 1 {
		t.Errorf("a walk whose first visit stops it went on for %d visits", visits)
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		name             string
		v                any
		secret, computed bool
	}{
		{"nil", nil, false, false},
		{"plain", map[string]any{"a": []any{"x", 1.0}}, false, false},
		{"a secret deep in a list", []any{map[string]any{"a": Secret{Element: "x"}}}, true, false},
		{"unknown in a property map", PropertyMap{"a": []any{Computed{}}}, false, true},
		{"unknown inside a secret", Secret{Element: Computed{}}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContainsSecret(tt.v); got != tt.secret {
				t.Errorf("ContainsSecret = %v, want %v", got, tt.secret)
			}
			if got := ContainsComputed(tt.v); got != tt.computed {
				t.Errorf("ContainsComputed = %v, want %v", got, tt.computed)
			}
		})
	}
}

func TestMap(t *testing.T) {
	in := PropertyMap{"a": Secret{Element: "s"}, "b": []any{"x", Computed{}}, "c": map[string]any(nil)}
	hide := func(v any) (any, bool) {
		if _, ok := v.(Secret); ok {
			return "[secret]", true
		}
		return nil, false
	}
	got := Map(in, hide)
	want := map[string]any{"a": "[secret]", "b": []any{"x", Computed{}}, "c": map[string]any{}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Map = %#v, want %#v", got, want)
	}
	got.(map[string]any)["b"].([]any)[0] = "changed"
	if in["b"].([]any)[0] != "x" {
		t.Fatal("Map shares its lists with its input")
	}
	if Map(Secret{Element: []any{"s"}}, func(any) (any, bool) { return nil, false }).(Secret).Element.([]any)[0] != "s" {
		t.Fatal("Map does not rebuild a secret's element")
	}
}

func TestCopyAndKnown(t *testing.T) {
	m := PropertyMap{"a": "x", "b": []any{Computed{}}}
	c := m.Copy(2)
	c["a"] = "changed"
	if m["a"] != "x" {
		t.Fatal("Copy shares its map with the original")
	}
	if !m.Known("a") || m.Known("b") || !m.Known("missing") {
		t.Fatalf("Known: a %v, b %v, missing %v; want true, false, true", m.Known("a"), m.Known("b"), m.Known("missing"))
	}
}

func TestMapErrNamesWhere(t *testing.T) {
	v := map[string]any{"a": []any{"ok", map[string]any{"b": "bad"}}}
	_, err := MapErr(v, func(x any) (any, bool, error) {
		if x == "bad" {
			return nil, true, errors.New("refused")
		}
		return nil, false, nil
	})
	if err == nil || err.Error() != "a: [1]: b: refused" {
		t.Fatalf("error %v, want a: [1]: b: refused", err)
	}
}
