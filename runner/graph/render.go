package graph

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/providers"
)

// Formats lists the formats of Render.
var Formats = []string{"tree", "dot", "mermaid", "json"}

// Render draws the graph in format: tree, dot, mermaid or json. The output
// is the same bytes for the same graph.
func Render(g *Graph, format string) ([]byte, error) {
	switch format {
	case "", "tree":
		return []byte(g.Tree()), nil
	case "dot":
		return []byte(g.DOT()), nil
	case "mermaid":
		return []byte(g.Mermaid()), nil
	case "json":
		return g.JSON()
	}
	return nil, &FormatError{Format: format}
}

// FormatError is an unknown --format.
type FormatError struct{ Format string }

func (e *FormatError) Error() string {
	return fmt.Sprintf("unknown format %q; use one of: %s", e.Format, strings.Join(Formats, ", "))
}

// Tree draws the projects grouped by category in execution order, each
// with its step number (projects with the same number run side by side),
// its description and what it runs after.
func (g *Graph) Tree() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Execution order of provider %s", g.Provider.Name)
	levels := g.Levels()
	fmt.Fprintf(&b, " (%d projects in %d steps; projects of one step run side by side)\n", len(g.Provider.Projects), len(levels))
	width := 0
	for _, n := range g.Order() {
		width = max(width, len(n))
	}
	for _, grp := range g.groups() {
		cat, names := grp.category, grp.names
		fmt.Fprintf(&b, "\n%s\n", cat)
		for i, n := range names {
			p, _ := g.Provider.Project(n)
			branch, indent := "├── ", "│   "
			if i == len(names)-1 {
				branch, indent = "└── ", "    "
			}
			fmt.Fprintf(&b, "%s%2d. %-*s  %s\n", branch, g.Level(n), width, n, p.Description)
			if up := g.Upstream(n); len(up) > 0 {
				fmt.Fprintf(&b, "%s    %-*s  after %s\n", indent, width, "", strings.Join(up, ", "))
			}
		}
	}
	return b.String()
}

// categories returns the provider's categories in display order, known
// ones first.
func categories(p *providers.Provider) []providers.Category {
	out := append([]providers.Category(nil), providers.Categories...)
	seen := map[providers.Category]bool{}
	for _, c := range out {
		seen[c] = true
	}
	for _, proj := range p.Projects {
		if !seen[proj.Category] {
			seen[proj.Category] = true
			out = append(out, proj.Category)
		}
	}
	return out
}

// group is one category's projects in execution order.
type group struct {
	category providers.Category
	names    []string
}

// groups returns the non-empty categories in display order.
func (g *Graph) groups() []group {
	order := g.Order()
	var out []group
	for _, cat := range categories(g.Provider) {
		var names []string
		for _, n := range order {
			if p, _ := g.Provider.Project(n); p.Category == cat {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			out = append(out, group{cat, names})
		}
	}
	return out
}

// DOT draws the graph for Graphviz, one cluster per category.
func (g *Graph) DOT() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n  rankdir=LR;\n  node [shape=box];\n", g.Provider.Name)
	order := g.Order()
	for _, grp := range g.groups() {
		cat, names := grp.category, grp.names
		fmt.Fprintf(&b, "  subgraph %q {\n    label=%q;\n", "cluster_"+string(cat), string(cat))
		for _, n := range names {
			p, _ := g.Provider.Project(n)
			fmt.Fprintf(&b, "    %q [tooltip=%q];\n", n, p.Description)
		}
		b.WriteString("  }\n")
	}
	for _, n := range order {
		for _, up := range g.Upstream(n) {
			fmt.Fprintf(&b, "  %q -> %q;\n", up, n)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// Mermaid draws the graph as a Mermaid flowchart, one subgraph per category.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	order := g.Order()
	id := func(n string) string { return strings.NewReplacer("-", "_", ".", "_", " ", "_").Replace(n) }
	for _, grp := range g.groups() {
		fmt.Fprintf(&b, "  subgraph %s\n", grp.category)
		names := grp.names
		for _, n := range names {
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", id(n), n)
		}
		b.WriteString("  end\n")
	}
	for _, n := range order {
		for _, up := range g.Upstream(n) {
			fmt.Fprintf(&b, "  %s --> %s\n", id(up), id(n))
		}
	}
	return b.String()
}

// jsonProject is one project in the JSON form.
type jsonProject struct {
	Name        string   `json:"name"`
	Category    string   `json:"category"`
	Description string   `json:"description"`
	Step        int      `json:"step"`
	DependsOn   []string `json:"depends_on"`
}

// JSON lists the projects in execution order with their step and edges.
func (g *Graph) JSON() ([]byte, error) {
	doc := struct {
		Provider string        `json:"provider"`
		Projects []jsonProject `json:"projects"`
		Steps    [][]string    `json:"steps"`
	}{Provider: g.Provider.Name, Steps: g.Levels()}
	for _, n := range g.Order() {
		p, _ := g.Provider.Project(n)
		up := g.Upstream(n)
		if up == nil {
			up = []string{}
		}
		doc.Projects = append(doc.Projects, jsonProject{Name: n, Category: string(p.Category), Description: p.Description, Step: g.Level(n), DependsOn: up})
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
