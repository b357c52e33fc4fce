package providers

import (
	"fmt"
	"sort"
)

// Registry holds the providers a run may choose from, by name, and the
// one chosen when none is named.
type Registry struct {
	byName      map[string]*Provider
	defaultName string
}

// NewRegistry returns the registry of ps whose default is the provider
// named defaultName. Two providers of one name, or a default that is not
// among them, is an error.
func NewRegistry(defaultName string, ps ...*Provider) (*Registry, error) {
	r := &Registry{byName: make(map[string]*Provider, len(ps)), defaultName: defaultName}
	for _, p := range ps {
		if _, dup := r.byName[p.Name]; dup {
			return nil, fmt.Errorf("two providers are named %q; give each its own name", p.Name)
		}
		r.byName[p.Name] = p
	}
	if _, ok := r.byName[defaultName]; !ok {
		return nil, fmt.Errorf("the default provider %q is not among the providers %v", defaultName, r.names())
	}
	return r, nil
}

// Default returns the name of the provider chosen when none is named.
func (r *Registry) Default() string { return r.defaultName }

// Get returns the provider named name ("" for the default), or an
// *UnknownError listing the known ones.
func (r *Registry) Get(name string) (*Provider, error) {
	if name == "" {
		name = r.defaultName
	}
	if p, ok := r.byName[name]; ok {
		return p, nil
	}
	return nil, &UnknownError{Name: name, Known: r.names()}
}

// All returns every provider, sorted by name.
func (r *Registry) All() []*Provider {
	out := make([]*Provider, 0, len(r.byName))
	for _, n := range r.names() {
		out = append(out, r.byName[n])
	}
	return out
}

func (r *Registry) names() []string {
	ns := make([]string, 0, len(r.byName))
	for n := range r.byName {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
