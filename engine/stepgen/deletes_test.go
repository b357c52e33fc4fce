package stepgen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/state"
)

func TestDeleteOrder(t *testing.T) {
	urn := func(name string) resource.URN { return resource.NewURN("dev", "p", "", "t:m:R", name) }
	prov := resource.NewURN("dev", "p", "", "pulumi:providers:t", "default")
	doomed := func(r *state.Resource) runstate.Doomed { return runstate.Doomed{Orig: r, Res: r, Op: plan.OpDelete} }
	tests := []struct {
		name string
		list []*state.Resource
		want [][]int // per resource, the indexes deleted before it
	}{
		{"independent", []*state.Resource{{URN: urn("a")}, {URN: urn("b")}}, [][]int{nil, nil}},
		{"a dependent goes first", []*state.Resource{{URN: urn("a")}, {URN: urn("b"), Dependencies: []resource.URN{urn("a")}}}, [][]int{{1}, nil}},
		{"a child goes before its parent", []*state.Resource{{URN: urn("parent")}, {URN: urn("child"), Parent: urn("parent")}}, [][]int{{1}, nil}},
		{"a provider goes after its resources", []*state.Resource{
			{URN: prov, ID: "id1"}, {URN: urn("a"), Provider: string(prov) + "::id1"}, {URN: urn("b"), Provider: string(prov) + "::id1"},
		}, [][]int{{1, 2}, nil, nil}},
		{"what is not doomed orders nothing", []*state.Resource{{URN: urn("b"), Dependencies: []resource.URN{urn("gone")}}}, [][]int{nil}},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			list := make([]runstate.Doomed, len(tt.list))
			for i, r := range tt.list {
				list[i] = doomed(r)
			}
			if got := DeleteOrder(list); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DeleteOrder = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRefuseProtected(t *testing.T) {
	a := &state.Resource{URN: resource.NewURN("dev", "p", "", "t:m:R", "a"), Type: "t:m:R", Protect: true}
	b := &state.Resource{URN: resource.NewURN("dev", "p", "", "t:m:R", "b"), Type: "t:m:R"}
	if err := RefuseProtected([]runstate.Doomed{{Res: b}}); err != nil {
		t.Errorf("nothing protected: %v", err)
	}
	err := RefuseProtected([]runstate.Doomed{{Res: a}, {Res: b}})
	if err == nil || !strings.Contains(err.Error(), `t:m:R "a"`) || strings.Contains(err.Error(), `"b"`) {
		t.Errorf("RefuseProtected = %v, want one naming a only", err)
	}
}
