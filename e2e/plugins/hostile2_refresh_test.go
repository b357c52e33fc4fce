package plugins

import (
	"os"
	"testing"
)

// A Read that fails (a store file that is not JSON) fails the refresh of
// that project, keeps its state, and leaves no plugin behind; a later
// refresh with the file repaired succeeds. (testprov has no Read crash mode.)
func TestHostile2RefreshReadFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"}), thing("b", map[string]any{"color": "blue"})}})
	e.ok("up", "--yes")
	id := e.byURNName()["a"]["id"].(string)
	good, err := os.ReadFile(e.store.Path(id))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.store.Path(id), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("refresh", "--yes")
	t.Logf("refresh with a bad file: %s", r)
	if r.Code == 0 {
		t.Fatalf("refresh succeeded with a failing Read: %s", r)
	}
	e.noPlugins("refresh with a failing Read")
	if st := e.exported("one", false); st["a"].ID != id || st["b"].ID == "" {
		t.Fatalf("a failed refresh changed the state: %v", st)
	}
	if err := os.WriteFile(e.store.Path(id), good, 0o644); err != nil {
		t.Fatal(err)
	}
	got, r := e.counts("refresh")
	want(t, "refresh after the repair", got, r, map[string]int{"refresh": 2})
	got, r = e.counts("up")
	want(t, "up after the refresh", got, r, map[string]int{"create": 0, "update": 0, "delete": 0})
}
