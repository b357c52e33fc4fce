package resource

import "testing"

func TestDeepEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"numbers", 1.0, 1.0, true},
		{"number vs string", 1.0, "1", false},
		{"property maps", PropertyMap{"a": 1.0}, PropertyMap{"a": 1.0}, true},
		{"property map vs map", PropertyMap{"a": 1.0}, map[string]any{"a": 1.0}, true},
		{"map vs property map", map[string]any{"a": 1.0}, PropertyMap{"a": 2.0}, false},
		{"secrets", Secret{Element: "x"}, Secret{Element: "x"}, true},
		{"secret vs plain", Secret{Element: "x"}, "x", false},
		{"computed never equal", Computed{}, Computed{}, false},
		{"lists", []any{"a", 1.0}, []any{"a", 1.0}, true},
		{"list lengths", []any{"a"}, []any{"a", "b"}, false},
		{"nil", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DeepEqual(tt.a, tt.b); got != tt.want {
				t.Fatalf("DeepEqual(%v, %v) = %v", tt.a, tt.b, got)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	got, err := Normalize(map[string]any{"n": 3, "l": []string{"a"}, "s": Secret{Element: int64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3.0, "l": []any{"a"}, "s": Secret{Element: 2.0}}
	if !DeepEqual(got, want) {
		t.Fatalf("Normalize = %#v", got)
	}
	if _, err := Normalize(map[string]any{"f": func() {}}); err == nil {
		t.Fatal("a function was accepted as a property value")
	}
}

func TestURN(t *testing.T) {
	u := NewURN("dev", "net", "my:comp:Comp", "random:index/randomId:RandomId", "salt")
	if u.Type() != "random:index/randomId:RandomId" || u.Name() != "salt" || u.Project() != "net" || u.Stack() != "dev" {
		t.Fatalf("parts of %s", u)
	}
	if u.QualifiedType() != "my:comp:Comp$random:index/randomId:RandomId" {
		t.Fatalf("qualified type %s", u.QualifiedType())
	}
	if URN("nope").Valid() {
		t.Fatal("an invalid URN is valid")
	}
}
