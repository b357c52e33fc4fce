package providers

import (
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestOneID(t *testing.T) {
	for _, c := range []struct {
		name   string
		result resource.PropertyMap
		id     string
		err    string
	}{
		{"absent list", resource.PropertyMap{}, "", ""},
		{"empty list", resource.PropertyMap{"records": []any{}}, "", ""},
		{"one numeric", resource.PropertyMap{"records": []any{map[string]any{"id": float64(123456)}}}, "123456", ""},
		{"one string", resource.PropertyMap{"records": []any{resource.PropertyMap{"id": "abc"}}}, "abc", ""},
		{"secret list", resource.PropertyMap{"records": resource.Secret{Element: []any{map[string]any{"id": "s"}}}}, "s", ""},
		{"two", resource.PropertyMap{"records": []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}}}, "", "2 DNS records match"},
		{"no id", resource.PropertyMap{"records": []any{map[string]any{"name": "x"}}}, "", "has no ID"},
		{"fraction", resource.PropertyMap{"records": []any{map[string]any{"id": 1.5}}}, "", "has no ID"},
		{"not a list", resource.PropertyMap{"records": "x"}, "", "not a list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := OneID(c.result, "records", "DNS records")
			if id != c.id || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Errorf("OneID = %q, %v; want %q, %q", id, err, c.id, c.err)
			}
		})
	}
}
