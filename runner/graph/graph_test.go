package graph

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/golden"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/providers/aws"
	"github.com/runnerhq/runner/providers/do"
	"github.com/runnerhq/runner/providers/kubeconfig"
	"github.com/runnerhq/runner/providers/linode"
	"github.com/runnerhq/runner/providers/local"
)

func provider(deps map[string][]string, order ...string) *providers.Provider {
	p := &providers.Provider{Name: "t"}
	for _, n := range order {
		p.Projects = append(p.Projects, providers.Project{Name: n, Category: providers.Infrastructure, DependsOn: deps[n]})
	}
	return p
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		deps  map[string][]string
		order []string
		want  string
	}{
		{"two-cycle", map[string][]string{"a": {"b"}, "b": {"a"}}, []string{"a", "b"}, "a -> b -> a"},
		{"three-cycle", map[string][]string{"a": {"c"}, "b": {"a"}, "c": {"b"}}, []string{"a", "b", "c"}, "cycle: a -> b -> c -> a"},
		{"self", map[string][]string{"a": {"a"}}, []string{"a"}, "a -> a"},
		{"unknown", map[string][]string{"a": {"zz"}}, []string{"a"}, `depends on "zz"`},
		{"duplicate", nil, []string{"a", "a"}, "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(provider(tt.deps, tt.order...))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCyclePathIsClosed(t *testing.T) {
	_, err := Build(provider(map[string][]string{"a": {"c"}, "b": {"a"}, "c": {"b"}}, "a", "b", "c"))
	ce, ok := err.(*CycleError)
	if !ok {
		t.Fatalf("error %T %v", err, err)
	}
	if len(ce.Path) < 3 || ce.Path[0] != ce.Path[len(ce.Path)-1] {
		t.Fatalf("cycle path %v is not closed", ce.Path)
	}
}

func TestOrderAndLevels(t *testing.T) {
	g, err := Build(provider(map[string][]string{"d": {"b", "c"}, "b": {"a"}, "c": {"a"}}, "d", "c", "b", "a", "e"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Order(), ","); got != "a,e,c,b,d" {
		t.Fatalf("order %s", got)
	}
	levels := g.Levels()
	if len(levels) != 3 || strings.Join(levels[0], ",") != "a,e" || strings.Join(levels[1], ",") != "c,b" {
		t.Fatalf("levels %v", levels)
	}
}

func TestUpstream(t *testing.T) {
	// c names a twice and is declared before b: upstream lists each project
	// once, in declaration order, whatever order DependsOn names them in.
	g, err := Build(provider(map[string][]string{"c": {"b", "a", "a"}, "b": {"a"}}, "a", "c", "b"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{{"a", ""}, {"b", "a"}, {"c", "a,b"}}
	for _, tt := range tests {
		if got := strings.Join(g.Upstream(tt.name), ","); got != tt.want {
			t.Errorf("Upstream(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := strings.Join(g.Order(), ","); got != "a,b,c" {
		t.Errorf("order %s, want a,b,c", got)
	}
}

func TestShowGolden(t *testing.T) {
	for _, p := range []*providers.Provider{local.New(), aws.New(), do.New(), kubeconfig.New(), linode.New()} {
		g, err := Build(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Formats {
			out, err := Render(g, f)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Render(g, f)
			if !bytes.Equal(out, again) {
				t.Fatalf("%s %s is not deterministic", p.Name, f)
			}
			golden.Check(t, p.Name+"."+f+".golden", out)
		}
	}
	if _, err := Render(&Graph{}, "svg"); err == nil || !strings.Contains(err.Error(), "tree, dot, mermaid, json") {
		t.Fatalf("unknown format error %v", err)
	}
}

// TestBuiltinProviderGraphs checks the built-in providers' edges: MARA's
// order survives in aws (sirius last, after the ingress controller and the
// secrets), and local starts with independent projects side by side.
func TestBuiltinProviderGraphs(t *testing.T) {
	g, err := Build(aws.New())
	if err != nil {
		t.Fatal(err)
	}
	if order := g.Order(); len(order) != 13 || order[len(order)-1] != "sirius" {
		t.Errorf("aws order %v, want 13 projects ending with sirius", order)
	}
	g, err = Build(local.New())
	if err != nil {
		t.Fatal(err)
	}
	if first := g.Levels()[0]; len(first) < 2 {
		t.Errorf("local's first step %v: want independent projects running side by side", first)
	}
}
