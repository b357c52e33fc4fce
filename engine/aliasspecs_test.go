package engine_test

import (
	"context"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/metadata"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

const componentType = "my:index:Component"

// componentURN is the URN of a component at the top of the stack.
func componentURN(name string) string {
	return string(resource.NewURN(stack, project, "", componentType, name))
}

// component registers a component at the top with alias specs.
func component(name string, aliases ...*pulumirpc.Alias) reg {
	return reg{req: &pulumirpc.RegisterResourceRequest{Type: componentType, Name: name, Aliases: aliases}}
}

// aliased is custom resource name (input n 1) with aliases, a child of
// the component parent ("": the stack).
func aliased(parent, name string, aliases ...*pulumirpc.Alias) reg {
	r := custom(name, resource.PropertyMap{"n": 1.0})
	if parent != "" {
		r.req.Parent = componentURN(parent)
	}
	r.req.Aliases = aliases
	return r
}

// spec is an alias spec of a former name, with no parent when noParent.
func spec(name string, noParent bool) *pulumirpc.Alias {
	s := &pulumirpc.Alias_Spec{Name: name}
	if noParent {
		s.Parent = &pulumirpc.Alias_Spec_NoParent{NoParent: true}
	}
	return &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: s}}
}

// TestHostedAliasSpecs checks structured aliases (aliasSpecs) as Pulumi's
// engine resolves them: a resource renamed by a spec, one moved under a
// component (its spec: its old name, no parent), a component renamed by
// a spec whose child, with no alias of its own, keeps its state under
// the name it derives from the component's ("old-x" -> "new-x"), and an
// alias that is a URN among the specs: every one keeps its resource (no
// create, no delete). An alias that is not a URN is refused.
func TestHostedAliasSpecs(t *testing.T) {
	e := newHostedEnv(t)
	before := registers(nil, component("old"), aliased("old", "old-x"), aliased("", "top"), aliased("", "a"), aliased("", "u"))
	if _, err := e.hosted(engine.Up, before); err != nil {
		t.Fatal(err)
	}
	byURN := &pulumirpc.Alias{Alias: &pulumirpc.Alias_Urn{Urn: string(urn("u"))}}
	after := registers(nil, component("new", spec("old", false)), aliased("new", "new-x"),
		aliased("new", "moved", spec("top", true)), aliased("", "b", spec("a", false)), aliased("", "v", byURN))
	res, err := e.hosted(engine.Up, after)
	if err != nil {
		t.Fatal(err)
	}
	if e.plugin.Count("Create") != 4 || e.plugin.Count("Delete") != 0 || res.Changes[engine.OpCreate] != 0 || res.Changes[engine.OpDelete] != 0 {
		t.Fatalf("the aliased resources were not kept: %v, %d creates, %d deletes", res.Changes, e.plugin.Count("Create"), e.plugin.Count("Delete"))
	}
	for _, name := range []string{"new", "new-x", "moved", "b", "v"} {
		if e.find(name) == nil {
			t.Errorf("%s is not recorded under its new URN", name)
		}
	}
	for _, name := range []string{"old", "old-x", "top", "a", "u"} {
		if e.find(name) != nil {
			t.Errorf("%s is still recorded under its old URN", name)
		}
	}
	if x := e.find("new-x"); x == nil || x.Parent != resource.URN(componentURN("new")) {
		t.Errorf("new-x is recorded as %+v", x)
	}
	bad := aliased("", "bad")
	bad.req.AliasURNs = []string{"not-a-urn"}
	if _, err := e.hosted(engine.Preview, registers(nil, bad)); err == nil || !strings.Contains(err.Error(), `the alias "not-a-urn" is not a URN`) {
		t.Errorf("an alias that is not a URN: %v", err)
	}
}

// TestHostedLegacyNodeAliasSpecs checks the alias specs of an older
// Node.js SDK (no aliasSpecs flag, the pulumi-runtime header nodejs) are
// read as Pulumi's engine reads them: an empty parent URN there meant no
// parent, so a resource moved from the stack under a component keeps
// its state; from any other SDK, or with the flag, an empty parent is
// the resource's own.
func TestHostedLegacyNodeAliasSpecs(t *testing.T) {
	emptyParent := &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: &pulumirpc.Alias_Spec{Name: "top",
		Parent: &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: ""}}}}
	tests := []struct {
		name       string
		node, flag bool
		kept       bool
	}{
		{"older Node.js SDK", true, false, true},
		{"Node.js SDK with aliasSpecs", true, true, false},
		{"another SDK", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newHostedEnv(t)
			if _, err := e.hosted(engine.Up, registers(nil, component("comp"), aliased("", "top"))); err != nil {
				t.Fatal(err)
			}
			moved := aliased("comp", "moved", emptyParent)
			moved.req.AliasSpecs = tt.flag
			prog := registers(nil, component("comp"), moved)
			if tt.node {
				prog = withNodeHeader(prog)
			}
			res, err := e.hosted(engine.Up, prog)
			if err != nil {
				t.Fatal(err)
			}
			if kept := res.Changes[engine.OpCreate] == 0; kept != tt.kept {
				t.Errorf("top kept: %v, want %v (%v)", kept, tt.kept, res.Changes)
			}
		})
	}
}

// withNodeHeader runs prog with the header the Node.js SDK sends.
func withNodeHeader(prog hostedFunc) hostedFunc {
	return func(ctx context.Context, c *client) error {
		return prog(metadata.AppendToOutgoingContext(ctx, "pulumi-runtime", "nodejs"), c)
	}
}
