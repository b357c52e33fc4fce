package state_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *state.Snapshot)
		want   string // "" for a valid snapshot
	}{
		{"valid", func(s *state.Snapshot) {}, ""},
		{"condemned duplicate is fine", func(s *state.Snapshot) {
			c := *s.Resources[3]
			c.Delete = true
			s.Resources = append(s.Resources, &c)
		}, ""},
		{"out of order", func(s *state.Snapshot) {
			s.Resources[3], s.Resources[4] = s.Resources[4], s.Resources[3]
		}, "which comes after it (resources out of order)"},
		{"dangling dependency", func(s *state.Snapshot) {
			s.Resources[4].Dependencies = []resource.URN{statetest.URN("network", "dev", "test:index:Thing", "ghost")}
		}, "depends on urn:pulumi:dev::network::test:index:Thing::ghost, which is not in the snapshot (dangling reference)"},
		{"dangling property dependency", func(s *state.Snapshot) {
			s.Resources[4].PropertyDependencies = map[string][]resource.URN{"x": {statetest.URN("network", "dev", "t:i:T", "ghost")}}
		}, `through property "x"`},
		{"dangling parent", func(s *state.Snapshot) {
			s.Resources[4].Parent = statetest.URN("network", "dev", "my:Component", "gone")
		}, "has parent urn:pulumi:dev::network::my:Component::gone, which is not in the snapshot"},
		{"dangling provider", func(s *state.Snapshot) {
			s.Resources[4].Provider = string(statetest.URN("network", "dev", "pulumi:providers:aws", "x")) + "::id"
		}, "uses provider urn:pulumi:dev::network::pulumi:providers:aws::x, which is not in the snapshot"},
		{"dangling deletedWith", func(s *state.Snapshot) {
			s.Resources[4].DeletedWith = statetest.URN("network", "dev", "t:i:T", "ghost")
		}, "is deleted with urn:pulumi:dev::network::t:i:T::ghost, which is not in the snapshot"},
		{"deletedWith out of order", func(s *state.Snapshot) {
			s.Resources[3].DeletedWith = s.Resources[4].URN
		}, "is deleted with urn:pulumi:dev::network::test:index:Thing::r00002, which comes after it"},
		{"foreign project", func(s *state.Snapshot) {
			s.Resources[4].URN = statetest.URN("other", "dev", "test:index:Thing", "r00002")
		}, `belongs to project "other" stack "dev", not to project "network" stack "dev"`},
		{"foreign stack", func(s *state.Snapshot) {
			s.Resources[4].URN = statetest.URN("network", "prod", "test:index:Thing", "r00002")
		}, `stack "prod"`},
		{"malformed URN", func(s *state.Snapshot) {
			s.Resources[4].URN = "not-a-urn"
		}, `resource #5 has a malformed URN "not-a-urn"`},
		{"duplicate URN", func(s *state.Snapshot) {
			c := *s.Resources[3]
			s.Resources = append(s.Resources, &c)
		}, "resource urn:pulumi:dev::network::test:index:Thing::r00001 appears twice (duplicate URN)"},
		{"pending operation of another stack", func(s *state.Snapshot) {
			s.PendingOperations = []state.PendingOperation{{Resource: &state.Resource{URN: statetest.URN("network", "prod", "a:b:C", "x")}, Type: state.OperationCreating}}
		}, "not to project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := statetest.Snapshot("network", "dev", 3)
			tt.mutate(s)
			err := state.Check(s, "network", "dev")
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var ie *state.IntegrityError
			if !errors.As(err, &ie) {
				t.Fatalf("Check = %v, want an *IntegrityError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSortDependencyOrder(t *testing.T) {
	s := statetest.Snapshot("network", "dev", 4)
	rev := make([]*state.Resource, len(s.Resources))
	for i, r := range s.Resources {
		rev[len(rev)-1-i] = r
	}
	s.Resources = state.SortDependencyOrder(rev)
	if err := state.Check(s, "network", "dev"); err != nil {
		t.Fatalf("after sorting: %v", err)
	}
	if len(s.Resources) != len(rev) {
		t.Fatalf("sorting lost resources")
	}
}
