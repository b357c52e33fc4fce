package local

import (
	"testing"

	"github.com/runnerhq/runner/providers"
)

func TestQuestions(t *testing.T) {
	tests := []struct {
		key, value string
		ok         bool
	}{
		{"app:adminPassword", "12345678", true},
		{"app:adminPassword", "1234567", false},
		{"app:port", "", true},
		{"app:port", "1024", true},
		{"app:port", "65535", true},
		{"app:port", "80", false},
		{"app:port", "65536", false},
		{"app:port", "http", false},
	}
	qs := map[string]providers.Question{}
	for _, q := range New().Questions {
		qs[q.Key] = q
	}
	if q := qs["app:adminPassword"]; !q.Secret || q.Optional {
		t.Fatalf("app:adminPassword must be a required secret: %+v", q)
	}
	if q := qs["app:port"]; q.Secret || !q.Optional {
		t.Fatalf("app:port must be optional and plain: %+v", q)
	}
	for _, tt := range tests {
		if err := qs[tt.key].Validate(tt.value); (err == nil) != tt.ok {
			t.Errorf("%s=%q: %v, want ok=%v", tt.key, tt.value, err, tt.ok)
		}
	}
}

// TestShape checks what the local environment is for: every category,
// independent projects side by side, every project implemented, a hook.
func TestShape(t *testing.T) {
	p := New()
	if len(p.Projects) < 5 {
		t.Fatalf("%d projects, want at least 5", len(p.Projects))
	}
	cats := map[providers.Category]bool{}
	hooks := 0
	for _, proj := range p.Projects {
		cats[proj.Category] = true
		if proj.Program == nil {
			t.Errorf("project %s has no program", proj.Name)
		}
		if proj.OnSuccess != nil {
			hooks++
		}
	}
	if len(cats) != len(providers.Categories) || hooks == 0 {
		t.Fatalf("categories %v, hooks %d", cats, hooks)
	}
	var roots []string
	for _, proj := range p.Projects {
		if len(proj.DependsOn) == 0 {
			roots = append(roots, proj.Name)
		}
	}
	if len(roots) < 2 {
		t.Fatalf("projects without dependencies %v: want independent projects running side by side", roots)
	}
}
