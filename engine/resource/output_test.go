package resource

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestOutputValues(t *testing.T) {
	a, b := URN("urn:pulumi:s::p::t::a"), URN("urn:pulumi:s::p::t::b")
	known := Output{Element: "v", Known: true, Dependencies: []URN{a}}
	secret := Output{Element: map[string]any{"k": known}, Known: true, Secret: true, Dependencies: []URN{b, a}}
	tests := []struct {
		name      string
		in        any
		downgrade any
		upgrade   any
		deps      []URN
	}{
		{"plain", "x", "x", "x", nil},
		{"known", known, "v", known, []URN{a}},
		{"unknown", Output{Dependencies: []URN{b}}, Computed{}, Output{Dependencies: []URN{b}}, []URN{b}},
		{"secret holding an output", secret, Secret{Element: map[string]any{"k": "v"}}, secret, []URN{b, a}},
		{"secret and unknown upgraded", []any{Secret{Element: 1.0}, Computed{}}, []any{Secret{Element: 1.0}, Computed{}},
			[]any{Output{Element: 1.0, Known: true, Secret: true}, Output{}}, nil},
		{"secret output of a secret", Output{Element: Secret{Element: "s"}, Known: true, Secret: true}, Secret{Element: "s"}, Output{Element: Output{Element: "s", Known: true, Secret: true}, Known: true, Secret: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DowngradeOutputs(tt.in); !reflect.DeepEqual(got, tt.downgrade) {
				t.Errorf("DowngradeOutputs = %#v, want %#v", got, tt.downgrade)
			}
			if got := UpgradeToOutputs(tt.in); !reflect.DeepEqual(got, tt.upgrade) {
				t.Errorf("UpgradeToOutputs = %#v, want %#v", got, tt.upgrade)
			}
			if got := OutputDependencies(nil, tt.in); !reflect.DeepEqual(got, tt.deps) {
				t.Errorf("OutputDependencies = %v, want %v", got, tt.deps)
			}
			if ContainsOutputs(tt.in) != (tt.name != "plain" && tt.name != "secret and unknown upgraded") {
				t.Errorf("ContainsOutputs = %v", ContainsOutputs(tt.in))
			}
		})
	}
	if !ContainsComputed(Output{}) || ContainsComputed(known) || !ContainsSecret(Output{Element: Secret{Element: "s"}, Known: true}) {
		t.Error("an unknown output is computed, a known one is not; a secret inside one is found")
	}
	if !ContainsSecret(Output{Element: "s", Known: true, Secret: true}) {
		t.Error("a secret output value holds no secret")
	}
	hush := Output{Element: "hush", Known: true, Secret: true}
	js, _ := json.Marshal(map[string]any{"o": hush})
	for _, shown := range []string{fmt.Sprint(hush), fmt.Sprintf("%#v", hush), fmt.Sprintf("%+v", []any{hush}), string(js)} {
		if strings.Contains(shown, "hush") {
			t.Errorf("a secret output value shows as %s", shown)
		}
	}
	var seen []bool
	Walk(secret, func(v any, inSecret bool) bool {
		if s, ok := v.(string); ok && s == "v" {
			seen = append(seen, inSecret)
		}
		return true
	})
	if len(seen) != 1 || !seen[0] {
		t.Errorf("Walk saw the value of a secret output as secret %v", seen)
	}
}
