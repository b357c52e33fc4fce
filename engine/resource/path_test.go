package resource

import (
	"reflect"
	"testing"
)

func TestParsePropertyPath(t *testing.T) {
	tests := []struct {
		in   string
		want PropertyPath
		bad  bool
	}{
		{in: "tags", want: PropertyPath{"tags"}},
		{in: "tags.Name", want: PropertyPath{"tags", "Name"}},
		{in: "rules[0].port", want: PropertyPath{"rules", 0, "port"}},
		{in: `labels["a.b"]`, want: PropertyPath{"labels", "a.b"}},
		{in: `["a.b"].c[2]`, want: PropertyPath{"a.b", "c", 2}},
		{in: "", bad: true},
		{in: "a..b", bad: true},
		{in: "a[x]", bad: true},
		{in: "a[*]", bad: true},
		{in: `a["b`, bad: true},
		{in: "a[1", bad: true},
		{in: ".a", bad: true},
	}
	for _, tt := range tests {
		got, err := ParsePropertyPath(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("%q: error %v, want bad=%v", tt.in, err, tt.bad)
			continue
		}
		if !tt.bad && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestPropertyPathSetGetDelete(t *testing.T) {
	base := func() PropertyMap {
		return PropertyMap{
			"tags":  map[string]any{"Name": "a", "env": "dev"},
			"rules": []any{map[string]any{"port": 80.0}},
			"s":     Secret{Element: map[string]any{"k": "v"}},
		}
	}
	tests := []struct {
		path string
		set  any
		del  bool
		want any // the value at path afterwards (nil with del: absent)
		ok   bool
	}{
		{path: "tags.Name", set: "b", want: "b", ok: true},
		{path: "rules[0].port", set: 81.0, want: 81.0, ok: true},
		{path: "s.k", set: "w", want: "w", ok: true},
		{path: "new.deep", set: 1.0, want: 1.0, ok: true},
		{path: "rules[3].port", set: 1.0, ok: false},
		{path: "tags.Name.x", set: 1.0, ok: false},
		{path: "tags.Name", del: true},
		{path: "s.k", del: true},
	}
	for _, tt := range tests {
		m := base()
		orig := base()
		p, err := ParsePropertyPath(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if tt.del {
			p.Delete(m)
			if _, ok := p.Get(m); ok {
				t.Errorf("%s: still there after Delete", tt.path)
			}
		} else {
			if ok := p.Set(m, tt.set); ok != tt.ok {
				t.Errorf("%s: Set ok %v, want %v", tt.path, ok, tt.ok)
			}
			got, found := p.Get(m)
			if tt.ok && (!found || !DeepEqual(got, tt.want)) {
				t.Errorf("%s: got %v %v, want %v", tt.path, got, found, tt.want)
			}
		}
		if tt.path == "s.k" {
			if _, secret := m["s"].(Secret); !secret {
				t.Errorf("%s: the secret lost its mark", tt.path)
			}
		}
		if !DeepEqual(map[string]any(base()), map[string]any(orig)) {
			t.Errorf("%s: changed shared values", tt.path)
		}
	}
}
