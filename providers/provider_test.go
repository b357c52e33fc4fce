package providers

import (
	"errors"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r, err := NewRegistry("alpha", &Provider{Name: "zeta"}, &Provider{Name: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.All() {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "alpha,zeta" {
		t.Fatalf("All() = %s, want alpha,zeta", got)
	}
	for name, want := range map[string]string{"zeta": "zeta", "": "alpha"} {
		if p, err := r.Get(name); err != nil || p.Name != want {
			t.Fatalf("Get(%q) = %v, %v; want %s", name, p, err, want)
		}
	}
	_, err = r.Get("nope")
	var unknown *UnknownError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "alpha, zeta") {
		t.Fatalf("Get(nope) error %v, want one naming nope and listing alpha, zeta", err)
	}
}

func TestNewRegistryRefuses(t *testing.T) {
	tests := []struct {
		name, defaultName string
		providers         []*Provider
		want              string
	}{
		{"a name twice", "a", []*Provider{{Name: "a"}, {Name: "a"}}, `two providers are named "a"`},
		{"an unknown default", "b", []*Provider{{Name: "a"}}, `the default provider "b" is not among`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewRegistry(tt.defaultName, tt.providers...); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %s", err, tt.want)
			}
		})
	}
}

func TestProjectLookup(t *testing.T) {
	p := &Provider{Projects: []Project{{Name: "a"}, {Name: "b", DependsOn: []string{"a"}}}}
	if got, ok := p.Project("b"); !ok || got.DependsOn[0] != "a" {
		t.Fatalf("Project(b) = %v, %v", got, ok)
	}
	if _, ok := p.Project("c"); ok {
		t.Fatal("Project(c) found a project that does not exist")
	}
}
