package backend

import (
	"fmt"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

func rec(name, id string, deleted bool, v string) *state.Resource {
	return &state.Resource{URN: resource.URN("urn:pulumi:dev::network::test:index:Thing::" + name), ID: id, Delete: deleted,
		Type: "test:index:Thing", Custom: true, Inputs: resource.PropertyMap{"v": v}}
}

// show renders resources as name/id/v (with "!" for condemned) and
// pending operations as type:name/v.
func show(s *state.Snapshot) string {
	var parts []string
	for _, r := range s.Resources {
		mark := ""
		if r.Delete {
			mark = "!"
		}
		parts = append(parts, fmt.Sprintf("%s%s/%s/%v", mark, r.URN.Name(), r.ID, r.Inputs["v"]))
	}
	for _, p := range s.PendingOperations {
		parts = append(parts, fmt.Sprintf("%s:%s/%v", p.Type, p.Resource.URN.Name(), p.Resource.Inputs["v"]))
	}
	return strings.Join(parts, " ")
}

func begin(seq int64, op string, old, new *state.Resource) Entry {
	return Entry{Seq: seq, Kind: EntryBegin, Op: op, Old: old, New: new}
}

func ok(seq int64, op string, old, new *state.Resource) Entry {
	return Entry{Seq: seq, Kind: EntrySuccess, Op: op, Old: old, New: new}
}

// TestFold pins the journal semantics (engine/doc.go) where the folder and
// the in-memory backends used to differ.
func TestFold(t *testing.T) {
	a1, a2 := rec("a", "1", false, "old"), rec("a", "1", false, "new")
	condemned := rec("a", "1", true, "older")
	b1 := rec("b", "2", false, "b")
	tests := []struct {
		name    string
		base    []*state.Resource
		pending []state.PendingOperation
		entries []Entry
		want    string
		err     string
	}{
		{"create appends", nil, nil, []Entry{begin(1, "create", nil, b1), ok(1, "create", nil, b1)}, "b/2/b", ""},
		{"update replaces the record matching Old", []*state.Resource{a1, b1}, nil,
			[]Entry{begin(1, "update", a1, a2), ok(1, "update", a1, a2)}, "a/1/new b/2/b", ""},
		{"update of a record not there keeps the resource known", []*state.Resource{b1}, nil,
			[]Entry{begin(1, "update", a1, a2), ok(1, "update", a1, a2)}, "b/2/b a/1/new", ""},
		{"the end entry's Old is not used", []*state.Resource{a1, b1}, nil,
			[]Entry{begin(1, "update", a1, a2), ok(1, "update", b1, a2)}, "a/1/new b/2/b", ""},
		{"create-replacement condemns the live record only", []*state.Resource{condemned, a1}, nil,
			[]Entry{begin(1, "create-replacement", a1, rec("a", "9", false, "new")), ok(1, "create-replacement", a1, rec("a", "9", false, "new"))},
			"!a/1/older !a/1/old a/9/new", ""},
		{"delete-replaced removes the condemned record, not the live one", []*state.Resource{condemned, a1}, nil,
			[]Entry{begin(1, "delete-replaced", condemned, nil), ok(1, "delete-replaced", condemned, nil)}, "a/1/old", ""},
		{"a failed step changes nothing", []*state.Resource{a1}, nil,
			[]Entry{begin(1, "delete", a1, nil), {Seq: 1, Kind: EntryFailure, Op: "delete"}}, "a/1/old", ""},
		{"begun steps are pending in the order they began", []*state.Resource{a1}, nil,
			[]Entry{begin(2, "delete", a1, nil), begin(1, "update", a1, a2), begin(3, "create-replacement", a1, b1), begin(4, "create", nil, b1)},
			"a/1/old deleting:a/old updating:a/new creating:b/b creating:b/b", ""},
		{"a begun step without Old is creating", nil, nil, []Entry{begin(1, "import", nil, b1)}, "creating:b/b", ""},
		{"read-replacement condemns the managed record", []*state.Resource{a1}, nil,
			[]Entry{begin(1, "read-replacement", a1, rec("a", "7", false, "read")), ok(1, "read-replacement", a1, rec("a", "7", false, "read"))},
			"!a/1/old a/7/read", ""},
		{"a begun read is reading, which changes nothing", []*state.Resource{a1}, nil,
			[]Entry{begin(1, "read", nil, b1), begin(2, "read-replacement", a1, rec("a", "7", false, "read"))}, "a/1/old reading:b/b reading:a/read", ""},
		{"the base's pending operations stay, first", []*state.Resource{a1}, []state.PendingOperation{{Resource: b1, Type: state.OperationCreating}},
			[]Entry{begin(1, "update", a1, a2)}, "a/1/old creating:b/b updating:a/new", ""},
		{"an end without its begin is an error", nil, nil, []Entry{ok(1, "create", nil, b1)}, "", "step 1 ends without having begun"},
		{"a failure without its begin is an error", nil, nil, []Entry{{Seq: 3, Kind: EntryFailure}}, "", "step 3 ends without having begun"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &state.Snapshot{Resources: append([]*state.Resource(nil), tt.base...), PendingOperations: tt.pending}
			before := show(base)
			got, err := Fold(base, tt.entries)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := show(got); s != tt.want {
				t.Fatalf("folded = %q\nwant     %q", s, tt.want)
			}
			if show(base) != before {
				t.Fatalf("Fold changed its base: %q, was %q", show(base), before)
			}
		})
	}
}
