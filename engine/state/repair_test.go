package state_test

import (
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

func TestRepair(t *testing.T) {
	ghost := statetest.URN("network", "dev", "my:Component", "gone")
	tests := []struct {
		name   string
		mutate func(s *state.Snapshot)
		want   []string // one substring per fix, in order
		check  func(t *testing.T, s *state.Snapshot)
	}{
		{"valid snapshot: nothing to do", func(s *state.Snapshot) {}, nil, nil},
		{"root and provider never journaled", func(s *state.Snapshot) {
			s.Resources = s.Resources[2:]
		}, []string{
			"added the provider urn:pulumi:dev::network::pulumi:providers:test::default (ID prov-id)",
			"added the root stack resource urn:pulumi:dev::network::pulumi:pulumi:Stack::network-dev",
		}, func(t *testing.T, s *state.Snapshot) {
			if s.Resources[0].Type != resource.RootStackType && s.Resources[1].Type != resource.RootStackType {
				t.Errorf("the root stack is not first: %v", s.Resources[0].URN)
			}
		}},
		{"dangling dependencies dropped", func(s *state.Snapshot) {
			s.Resources = append(s.Resources[:2], s.Resources[3:]...) // r00000 gone
		}, []string{
			"dropped the dependency of urn:pulumi:dev::network::test:index:Thing::r00001 on urn:pulumi:dev::network::test:index:Thing::r00000",
			`dropped the dependency of urn:pulumi:dev::network::test:index:Thing::r00001 (through property "after") on`,
		}, func(t *testing.T, s *state.Snapshot) {
			if r := s.Resources[2]; len(r.Dependencies) != 0 || len(r.PropertyDependencies) != 0 {
				t.Errorf("r00001 still depends on %v %v", r.Dependencies, r.PropertyDependencies)
			}
		}},
		{"missing component parent: re-parented to the root", func(s *state.Snapshot) {
			s.Resources[3].Parent = ghost
		}, []string{"re-parented urn:pulumi:dev::network::test:index:Thing::r00001 to the root stack"}, func(t *testing.T, s *state.Snapshot) {
			if s.Resources[3].Parent != s.Resources[0].URN {
				t.Errorf("parent is %s", s.Resources[3].Parent)
			}
		}},
		{"dangling deletedWith dropped", func(s *state.Snapshot) {
			s.Resources[3].DeletedWith = ghost
		}, []string{"dropped the deletedWith of urn:pulumi:dev::network::test:index:Thing::r00001, " + string(ghost)}, func(t *testing.T, s *state.Snapshot) {
			if s.Resources[3].DeletedWith != "" {
				t.Errorf("deletedWith is still %s", s.Resources[3].DeletedWith)
			}
		}},
		{"provider reference naming no provider", func(s *state.Snapshot) {
			s.Resources[3].Provider = "garbage"
		}, []string{`dropped the provider reference "garbage"`}, nil},
		{"out of order", func(s *state.Snapshot) {
			s.Resources[3], s.Resources[4] = s.Resources[4], s.Resources[3]
		}, []string{"put the resources in dependency order"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := statetest.Snapshot("network", "dev", 3)
			tt.mutate(s)
			before := make([]resource.URN, len(s.Resources))
			originals := append([]*state.Resource(nil), s.Resources...)
			for i, r := range s.Resources {
				before[i] = r.Parent
			}
			fixes := state.Repair(s, "network", "dev")
			if len(fixes) != len(tt.want) {
				t.Fatalf("fixes = %v, want %d", fixes, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(fixes[i].What, w) {
					t.Errorf("fix %d = %q, want it to contain %q", i, fixes[i].What, w)
				}
			}
			if err := state.Check(s, "network", "dev"); err != nil {
				t.Errorf("after repair: %v", err)
			}
			for i, r := range originals {
				if r.Parent != before[i] {
					t.Errorf("record %d was changed in place", i)
				}
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}
