package cluster

import (
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/providers"
)

func TestProjectsFormAGraphAfterKubeconfig(t *testing.T) {
	ps := Projects(providers.Project{Description: "mine", Program: func(providers.Runtime) engine.Program { return nil }})
	if ps[0].Name != "kubeconfig" || ps[0].Category != providers.Kubernetes || ps[0].Description != "mine" {
		t.Fatalf("first project %+v, want the provider's kubeconfig project", ps[0])
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.Name] {
			t.Errorf("project %s twice", p.Name)
		}
		for _, d := range p.DependsOn {
			if !seen[d] {
				t.Errorf("project %s depends on %s, which does not come before it", p.Name, d)
			}
		}
		seen[p.Name] = true
		if p.Program == nil || p.Description == "" {
			t.Errorf("project %s has no program or no description", p.Name)
		}
	}
}

func TestQuestions(t *testing.T) {
	seen := map[string]bool{}
	for _, q := range Questions() {
		if seen[q.Key] {
			t.Errorf("question %s twice", q.Key)
		}
		seen[q.Key] = true
		if q.Validate != nil && q.Validate("  ") == nil {
			t.Errorf("%s accepts a blank answer", q.Key)
		}
	}
	if !seen["prometheus:adminpass"] {
		t.Error("prometheus:adminpass is not asked")
	}
}
