package plugins

import (
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// Changing testprov:store (DiffConfig: update) updates the provider in
// place: no resource is replaced, and refresh then reads the new store.
func TestHostile2StoreChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	e.ok("up", "--yes")
	old := e.store
	e.store = providertest.Store(t.TempDir())
	e.ok("config", "set", "testprov:store", string(e.store))
	got, r := e.counts("preview")
	t.Logf("preview after a store change: %v, provider %v", got, providerOps(r))
	got, r = e.counts("up")
	want(t, "up after a store change", got, r, map[string]int{"create": 0, "create-replacement": 0, "delete": 0})
	t.Logf("up after a store change: %v, provider %v", got, providerOps(r))
	var prov stateResource
	for _, res := range e.exported("one", false) {
		if res.Type == "pulumi:providers:testprov" {
			prov = res
		}
	}
	t.Logf("provider inputs after the up: %v", prov.Inputs)
	if prov.Inputs["store"] != string(e.store) {
		t.Fatalf("the provider in state has store %v, want the new %v", prov.Inputs["store"], e.store)
	}
	got, r = e.counts("refresh")
	t.Logf("refresh after a store change: %v\n%s", got, r.Stdout)
	got, r = e.counts("up")
	t.Logf("up after the refresh: %v; new store %d, old store %d", got, len(e.resources()), func() int { rs, _ := old.Resources(); return len(rs) }())
}

// providerOps returns the ops of the testprov provider resources in r.
func providerOps(r result) []string {
	var ops []string
	for _, ev := range events(r.Stdout) {
		if ev["type"] == "step-done" && ev["resource_type"] == "pulumi:providers:testprov" {
			ops = append(ops, ev["op"].(string))
		}
	}
	return ops
}
