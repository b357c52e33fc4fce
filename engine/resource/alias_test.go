package resource_test

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestAliasURNOf(t *testing.T) {
	comp := resource.NewURN("dev", "p", "", "my:C", "comp")
	renamed := resource.NewURN("dev", "p", "", "my:C", "comp2")
	root := resource.RootURN("p", "dev")
	former := func(u resource.URN) resource.URN {
		if u == renamed {
			return comp
		}
		return ""
	}
	tests := []struct {
		name   string
		alias  resource.Alias
		parent resource.URN
		want   resource.URN
	}{
		{"a whole URN", resource.Alias{URN: "urn:pulumi:x::y::t:m:T::n"}, comp, "urn:pulumi:x::y::t:m:T::n"},
		{"a former name", resource.Alias{Name: "old"}, root, "urn:pulumi:dev::p::t:m:T::old"},
		{"the resource's own parent", resource.Alias{Name: "old"}, comp, "urn:pulumi:dev::p::my:C$t:m:T::old"},
		{"no parent", resource.Alias{NoParent: true}, comp, "urn:pulumi:dev::p::t:m:T::n"},
		{"another parent", resource.Alias{Parent: comp}, root, "urn:pulumi:dev::p::my:C$t:m:T::n"},
		{"a parent found under its former URN", resource.Alias{Parent: renamed, Name: "m"}, root, "urn:pulumi:dev::p::my:C$t:m:T::m"},
		{"type, project and stack", resource.Alias{Type: "t:m:Old", Project: "q", Stack: "prod"}, root, "urn:pulumi:prod::q::t:m:Old::n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.alias.URNOf("n", "t:m:T", tt.parent, "p", "dev", former); got != tt.want {
				t.Errorf("URNOf = %s, want %s", got, tt.want)
			}
		})
	}
}
