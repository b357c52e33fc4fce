package plugins

import (
	"testing"
)

// stack rm refuses a stack with plugin resources; --force removes the state
// and says the resources are left running; nothing is deleted in the cloud.
func TestHostile2StackRmForce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	e.ok("up", "--yes")
	r := e.run("stack", "rm", "dev", "--yes")
	t.Logf("stack rm: %s", r)
	if r.Code == 0 {
		t.Fatalf("stack rm of a stack with resources succeeded: %s", r)
	}
	r = e.run("stack", "rm", "dev", "--force", "--yes")
	t.Logf("stack rm --force: %s", r)
	if r.Code != 0 {
		t.Fatalf("stack rm --force: %s", r)
	}
	if len(e.resources()) != 1 {
		t.Fatalf("stack rm --force touched the cloud: %v", e.resources())
	}
	must(t, "stack rm --force", r.Stdout+r.Stderr, "left")
	e.noPlugins("stack rm --force")
}

// destroy --target two then up: only two's resources go, then come back.
func TestHostile2DestroyTargetThenUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{
		"resources": []any{thing("a", map[string]any{"color": "red"})},
		"outputs":   map[string]any{"aName": map[string]any{"$output": "a.name"}},
	})
	e.spec("two", map[string]any{"resources": []any{thing("c", map[string]any{"from": map[string]any{"$stack": "one.aName"}})}})
	e.ok("up", "--yes")
	before := e.byURNName()
	got, r := e.counts("destroy", "--target", "two")
	want(t, "destroy --target two", got, r, map[string]int{"delete": 1})
	after := e.byURNName()
	if len(after) != 1 || after["a"]["id"] != before["a"]["id"] {
		t.Fatalf("destroy --target two left %v", after)
	}
	got, r = e.counts("up")
	want(t, "up after destroy --target two", got, r, map[string]int{"create": 1, "update": 0, "create-replacement": 0})
	// two is deployed and builds on one: destroying one alone is refused
	// before anything changes (exit 3), as Pulumi refuses a target with
	// dependents.
	r = e.fails(3, "destroy", "--target", "one", "--yes") // nothing ran: exit 3
	must(t, "destroy --target one", r.Stdout+r.Stderr, "without what they build on: two")
	if got := e.byURNName(); len(got) != 2 {
		t.Fatalf("the refused destroy --target one changed the cloud: %v", got)
	}
}
