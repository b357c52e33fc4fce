package providers

import (
	"errors"
	"strings"
	"testing"
)

// reset empties the registry for one test and restores it after.
func reset(t *testing.T) {
	t.Helper()
	mu.Lock()
	saved := registry
	registry = map[string]*Provider{}
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		registry = saved
		mu.Unlock()
	})
}

func TestRegistry(t *testing.T) {
	reset(t)
	Register(&Provider{Name: "zeta"})
	Register(&Provider{Name: "alpha"})
	var names []string
	for _, p := range All() {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "alpha,zeta" {
		t.Fatalf("All() = %s, want alpha,zeta", got)
	}
	if p, err := Get("zeta"); err != nil || p.Name != "zeta" {
		t.Fatalf("Get(zeta) = %v, %v", p, err)
	}
	_, err := Get("nope")
	var unknown *UnknownError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "alpha, zeta") {
		t.Fatalf("Get(nope) error %v, want one naming nope and listing alpha, zeta", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	reset(t)
	Register(&Provider{Name: "a"})
	defer func() {
		if recover() == nil {
			t.Fatal("a second provider named a was accepted")
		}
	}()
	Register(&Provider{Name: "a"})
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
