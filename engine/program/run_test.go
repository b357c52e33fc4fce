package program_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

const typ = "test:index:Thing"

func env() program.Env { return program.Env{Project: "p", Stack: "dev"} }

func TestRunRefusesFailedPrograms(t *testing.T) {
	tests := []struct {
		name string
		prog program.Program
		want string
	}{
		{"error", func(*program.Context) error { return errors.New("boom") }, "running the program: boom"},
		{"panic", func(*program.Context) error { panic("oops") }, "the program panicked: oops"},
		{"duplicate", func(c *program.Context) error {
			c.Resource(typ, "a", nil)
			c.Resource(typ, "a", nil)
			return nil
		}, "a resource with this URN is already declared"},
		{"no type token", func(c *program.Context) error {
			c.Resource("thing", "a", nil)
			return nil
		}, "needs a name and a type token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := program.Run(context.Background(), env(), tt.prog)
			if err == nil || !strings.Contains(err.Error(), tt.want) || ds != nil {
				t.Fatalf("Run = %v, %v; want no declarations and an error holding %q", ds, err, tt.want)
			}
		})
	}
}

// declare declares: a; b from a's output; component c with child d; e
// depending on c (so on d too) and f on the root stack.
func declare(c *program.Context) error {
	a := c.Resource(typ, "a", program.Inputs{"n": 1})
	c.Resource(typ, "b", program.Inputs{"from": a.Output("x"), "plain": "v"}, program.Protect(true))
	comp := c.Component("test:index:Group", "c")
	c.Resource(typ, "d", nil, program.Parent(comp))
	c.Resource(typ, "e", nil, program.DependsOn(comp), program.IgnoreChanges("k"))
	c.Export("out", a.Output("x"))
	return nil
}

func TestDeclarationsReadWhatTheProgramDeclared(t *testing.T) {
	ds, err := program.Run(context.Background(), env(), declare)
	if err != nil {
		t.Fatal(err)
	}
	list := ds.List()
	var names []string
	for _, d := range list {
		names = append(names, d.Name)
	}
	if want := []string{"p-dev", "a", "b", "c", "d", "e"}; !slices.Equal(names, want) {
		t.Fatalf("declared %v, want %v", names, want)
	}
	if list[0].Type != resource.RootStackType || list[0].Parent != -1 || list[1].Parent != 0 || list[4].Parent != 3 {
		t.Errorf("root or parents wrong: %+v", list)
	}
	if !list[2].Protect || list[3].Custom || !list[5].Custom || !slices.Equal(list[5].IgnoreChanges, []string{"k"}) {
		t.Errorf("options wrong: %+v", list)
	}
	tests := []struct {
		i     int
		waits []int
		urns  []string // names
		props []string // properties with dependencies
	}{
		{1, []int{}, nil, nil},
		{2, []int{1}, []string{"a"}, []string{"from"}},
		{4, []int{}, nil, nil},
		{5, []int{3, 4}, []string{"c"}, nil},
	}
	for _, tt := range tests {
		deps, err := ds.Dependencies(tt.i)
		if err != nil {
			t.Fatal(err)
		}
		var urns []string
		for _, u := range deps.URNs {
			urns = append(urns, u.Name())
		}
		var props []string
		for k := range deps.Properties {
			props = append(props, k)
		}
		if !slices.Equal(deps.Waits, tt.waits) || !slices.Equal(urns, tt.urns) || !slices.Equal(props, tt.props) {
			t.Errorf("Dependencies(%d) = %v %v %v, want %v %v %v", tt.i, deps.Waits, urns, props, tt.waits, tt.urns, tt.props)
		}
	}
}

func TestFinishMakesOutputsReadable(t *testing.T) {
	ds, err := program.Run(context.Background(), env(), declare)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Inputs(2); err == nil {
		t.Fatal("resolving b's inputs before a finished: no error")
	}
	ds.Finish(1, "id-a", true, resource.PropertyMap{"x": resource.Secret{Element: "s3cret"}}, nil)
	in, err := ds.Inputs(2)
	if err != nil {
		t.Fatal(err)
	}
	if !resource.DeepEqual(in, resource.PropertyMap{"from": resource.Secret{Element: "s3cret"}, "plain": "v"}) {
		t.Errorf("inputs of b = %v", in)
	}
	outs, err := ds.Outputs()
	if err != nil {
		t.Fatal(err)
	}
	if _, secret := outs["out"].(resource.Secret); !secret {
		t.Errorf("stack output out = %#v, want it secret", outs["out"])
	}
}

func TestStackReferenceReadsThroughTheEnv(t *testing.T) {
	calls := 0
	e := env()
	e.StackOutputs = func(project string) (resource.PropertyMap, bool, error) {
		calls++
		return resource.PropertyMap{"url": "http://" + project}, false, nil
	}
	ds, err := program.Run(context.Background(), e, func(c *program.Context) error {
		ref := c.StackReference("net")
		c.Export("a", ref.Output("url"))
		c.Export("b", c.StackReference("net").Output("url"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ds.Outputs()
	if err != nil {
		t.Fatal(err)
	}
	if outs["a"] != "http://net" || outs["b"] != "http://net" || calls != 1 {
		t.Errorf("outputs %v after %d loads, want both http://net after 1", outs, calls)
	}
}

func TestImportAndTimeoutsOptions(t *testing.T) {
	limits := program.CustomTimeouts{Create: time.Minute, Delete: time.Second}
	ds, err := program.Run(context.Background(), env(), func(c *program.Context) error {
		c.Resource(typ, "a", nil, program.Import("id-1"), program.Timeouts(limits))
		c.Resource(typ, "b", nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	list := ds.List()
	if list[1].ImportID != "id-1" || list[1].Timeouts != limits {
		t.Errorf("a: import %q, timeouts %+v", list[1].ImportID, list[1].Timeouts)
	}
	if list[2].ImportID != "" || list[2].Timeouts != (program.CustomTimeouts{}) {
		t.Errorf("b has options it was not given: %+v", list[2])
	}
}
