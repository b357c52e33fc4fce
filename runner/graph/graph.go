// Package graph builds a provider's project graph (with dominikbraun/graph,
// which refuses cycles) and computes its execution order: levels of
// projects that can run side by side, in a deterministic order.
package graph

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	dgraph "github.com/dominikbraun/graph"

	"github.com/runnerhq/runner/providers"
)

// Graph is a provider's projects and the edges between them.
type Graph struct {
	Provider *providers.Provider
	g        dgraph.Graph[string, string]
	index    map[string]int // declaration order
	level    map[string]int // 1 for projects with no upstream
}

// Build checks the provider's graph: every dependency names a project, and
// there is no cycle (reported with its path, "a -> b -> a").
func Build(p *providers.Provider) (*Graph, error) {
	g := dgraph.New(dgraph.StringHash, dgraph.Directed(), dgraph.PreventCycles())
	gr := &Graph{Provider: p, g: g, index: map[string]int{}, level: map[string]int{}}
	for i, proj := range p.Projects {
		if err := g.AddVertex(proj.Name); err != nil {
			if errors.Is(err, dgraph.ErrVertexAlreadyExists) {
				return nil, fmt.Errorf("provider %s declares the project %q twice", p.Name, proj.Name)
			}
			return nil, err
		}
		gr.index[proj.Name] = i
	}
	for _, proj := range p.Projects {
		for _, dep := range proj.DependsOn {
			if _, ok := gr.index[dep]; !ok {
				return nil, fmt.Errorf("provider %s: project %q depends on %q, which is not one of its projects", p.Name, proj.Name, dep)
			}
			if err := g.AddEdge(dep, proj.Name); err != nil {
				if errors.Is(err, dgraph.ErrEdgeCreatesCycle) {
					path, _ := dgraph.ShortestPath(g, proj.Name, dep)
					return nil, &CycleError{Provider: p.Name, Path: gr.rotate(path)}
				}
				if errors.Is(err, dgraph.ErrEdgeAlreadyExists) {
					continue
				}
				return nil, fmt.Errorf("provider %s: adding the edge %s -> %s: %w", p.Name, dep, proj.Name, err)
			}
		}
	}
	for _, name := range gr.topological() {
		lvl := 1
		for _, d := range gr.Upstream(name) {
			lvl = max(lvl, gr.level[d]+1)
		}
		gr.level[name] = lvl
	}
	return gr, nil
}

// CycleError is a dependency cycle between projects.
type CycleError struct {
	Provider string
	Path     []string
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("provider %s: the projects depend on each other in a cycle: %s", e.Provider, strings.Join(e.Path, " -> "))
}

// Upstream returns the projects name depends on, in declaration order.
func (g *Graph) Upstream(name string) []string {
	p, _ := g.Provider.Project(name)
	if p == nil {
		return nil
	}
	out := append([]string(nil), p.DependsOn...)
	sort.Slice(out, func(i, j int) bool { return g.index[out[i]] < g.index[out[j]] })
	return out
}

// Downstream returns the projects that depend on name, in declaration order.
func (g *Graph) Downstream(name string) []string {
	var out []string
	for _, p := range g.Provider.Projects {
		for _, d := range p.DependsOn {
			if d == name {
				out = append(out, p.Name)
				break
			}
		}
	}
	return out
}

// rotate closes a cycle's path and starts it at its first declared project.
func (g *Graph) rotate(path []string) []string {
	start := 0
	for i, n := range path {
		if g.index[n] < g.index[path[start]] {
			start = i
		}
	}
	out := append(append([]string{}, path[start:]...), path[:start]...)
	return append(out, out[0])
}

// Order returns every project in execution order: by level (a project
// comes after its upstream projects), then by declaration order. The same
// graph always gives the same order.
func (g *Graph) Order() []string {
	out := g.topological()
	sort.SliceStable(out, func(i, j int) bool {
		if g.level[out[i]] != g.level[out[j]] {
			return g.level[out[i]] < g.level[out[j]]
		}
		return g.index[out[i]] < g.index[out[j]]
	})
	return out
}

// topological returns a topological order, ties broken by declaration.
func (g *Graph) topological() []string {
	waiting := map[string]int{}
	for _, p := range g.Provider.Projects {
		waiting[p.Name] = len(uniq(p.DependsOn))
	}
	var ready, out []string
	for _, p := range g.Provider.Projects {
		if waiting[p.Name] == 0 {
			ready = append(ready, p.Name)
		}
	}
	for len(ready) > 0 {
		sort.Slice(ready, func(i, j int) bool { return g.index[ready[i]] < g.index[ready[j]] })
		next := ready[0]
		ready = ready[1:]
		out = append(out, next)
		for _, d := range g.Downstream(next) {
			waiting[d]--
			if waiting[d] == 0 {
				ready = append(ready, d)
			}
		}
	}
	return out
}

// Level returns the project's step in the execution: 1 for projects with
// no upstream, otherwise one more than its deepest upstream. Projects of the
// same level can run side by side.
func (g *Graph) Level(name string) int { return g.level[name] }

// Levels returns the projects grouped by level, each level in execution order.
func (g *Graph) Levels() [][]string {
	var out [][]string
	for _, name := range g.Order() {
		l := g.level[name]
		for len(out) < l {
			out = append(out, nil)
		}
		out[l-1] = append(out[l-1], name)
	}
	return out
}

// Dependencies returns, for the scheduler, each project's upstream projects.
func (g *Graph) Dependencies() map[string][]string {
	deps := map[string][]string{}
	for _, p := range g.Provider.Projects {
		deps[p.Name] = uniq(p.DependsOn)
	}
	return deps
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
