package runstate

import (
	"reflect"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// TestFollowRenames: references to a renamed resource's former URN follow
// it (parent, dependencies, property dependencies, deletedWith, provider),
// the records are copied, and a former URN held again is left alone.
func TestFollowRenames(t *testing.T) {
	const (
		a    = resource.URN("urn:pulumi:s::p::t:i:T::a")
		a2   = resource.URN("urn:pulumi:s::p::t:i:T::a2")
		prov = resource.URN("urn:pulumi:s::p::pulumi:providers:t::x")
		pnew = resource.URN("urn:pulumi:s::p::pulumi:providers:t::y")
		o    = resource.URN("urn:pulumi:s::p::t:i:T::o")
	)
	tests := []struct {
		name     string
		in, want state.Resource
		held     bool // a record of URN a is in the list too
	}{
		{"every reference", state.Resource{URN: "b", Parent: a, Dependencies: []resource.URN{o, a}, DeletedWith: a,
			PropertyDependencies: map[string][]resource.URN{"v": {a}, "w": {o}}, Provider: string(prov) + "::id1"},
			state.Resource{URN: "b", Parent: a2, Dependencies: []resource.URN{o, a2}, DeletedWith: a2,
				PropertyDependencies: map[string][]resource.URN{"v": {a2}, "w": {o}}, Provider: string(pnew) + "::id1"}, false},
		{"none", state.Resource{URN: "b", Parent: o, Dependencies: []resource.URN{o}},
			state.Resource{URN: "b", Parent: o, Dependencies: []resource.URN{o}}, false},
		{"former URN held again", state.Resource{URN: "b", DeletedWith: a}, state.Resource{URN: "b", DeletedWith: a}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			list := []*state.Resource{&in}
			if tt.held {
				list = append(list, &state.Resource{URN: a})
			}
			followRenames(list, map[resource.URN]resource.URN{a: a2, prov: pnew})
			if !reflect.DeepEqual(*list[0], tt.want) {
				t.Errorf("got %+v, want %+v", *list[0], tt.want)
			}
			if !reflect.DeepEqual(in, tt.in) {
				t.Errorf("the record itself changed: %+v", in)
			}
		})
	}
}
