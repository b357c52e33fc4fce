// Package graph builds a provider's project graph and checks it once:
// dominikbraun/graph holds it, refuses cycles and orders it. It computes
// the execution order, levels of projects that can run side by side, in a
// deterministic order.
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
	index    map[string]int      // declaration order
	level    map[string]int      // 1 for projects with no upstream
	upstream map[string][]string // in declaration order
	order    []string            // execution order
}

// Build checks the provider's graph: every dependency names a project, and
// there is no cycle (reported with its path, "a -> b -> a").
func Build(p *providers.Provider) (*Graph, error) {
	g := dgraph.New(dgraph.StringHash, dgraph.Directed(), dgraph.PreventCycles())
	gr := &Graph{Provider: p, index: map[string]int{}, level: map[string]int{}, upstream: map[string][]string{}}
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
	if err := gr.sort(g); err != nil {
		return nil, fmt.Errorf("provider %s: ordering the projects: %w", p.Name, err)
	}
	return gr, nil
}

// sort records each project's upstream projects and level, and the
// execution order: by level (a project comes after its upstream projects),
// then by declaration order.
func (gr *Graph) sort(g dgraph.Graph[string, string]) error {
	declared := func(a, b string) bool { return gr.index[a] < gr.index[b] }
	topo, err := dgraph.StableTopologicalSort(g, declared)
	if err != nil {
		return err
	}
	preds, err := g.PredecessorMap()
	if err != nil {
		return err
	}
	for _, name := range topo {
		lvl := 1
		for d := range preds[name] {
			gr.upstream[name] = append(gr.upstream[name], d)
			lvl = max(lvl, gr.level[d]+1)
		}
		sort.Slice(gr.upstream[name], func(i, j int) bool { return declared(gr.upstream[name][i], gr.upstream[name][j]) })
		gr.level[name] = lvl
	}
	gr.order = topo
	sort.SliceStable(gr.order, func(i, j int) bool {
		a, b := gr.order[i], gr.order[j]
		if gr.level[a] != gr.level[b] {
			return gr.level[a] < gr.level[b]
		}
		return declared(a, b)
	})
	return nil
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
func (g *Graph) Upstream(name string) []string { return append([]string(nil), g.upstream[name]...) }

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
func (g *Graph) Order() []string { return append([]string(nil), g.order...) }

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
