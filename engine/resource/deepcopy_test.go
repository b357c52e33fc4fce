package resource

import (
	"reflect"
	"testing"
)

func TestDeepCopy(t *testing.T) {
	for _, tt := range []struct {
		name   string
		v      any
		change func(v any) // writes into the copy
	}{
		{"nested map", map[string]any{"a": map[string]any{"b": "c"}}, func(v any) { v.(map[string]any)["a"].(map[string]any)["b"] = "x" }},
		{"property map keeps its type", PropertyMap{"a": []any{"b"}}, func(v any) { v.(PropertyMap)["a"].([]any)[0] = "x" }},
		{"secret", Secret{Element: map[string]any{"k": "v"}}, func(v any) { v.(Secret).Element.(map[string]any)["k"] = "x" }},
		{"nil map stays nil", map[string]any{"n": map[string]any(nil)}, func(v any) { v.(map[string]any)["m"] = 1 }},
		{"scalar", "s", func(any) {}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orig := DeepCopy(tt.v) // a second, untouched copy to compare with
			c := DeepCopy(tt.v)
			if !reflect.DeepEqual(c, tt.v) || reflect.TypeOf(c) != reflect.TypeOf(tt.v) {
				t.Fatalf("DeepCopy(%#v) = %#v", tt.v, c)
			}
			tt.change(c)
			if !reflect.DeepEqual(tt.v, orig) {
				t.Errorf("writing into the copy changed the original: %#v", tt.v)
			}
		})
	}
}
