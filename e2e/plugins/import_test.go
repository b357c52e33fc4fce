package plugins

import (
	"os"
	"testing"
)

// A resource made by stack dev is imported by ID into stack prod: `up`
// shows an import and creates nothing, the next up is a no-op; an import
// whose inputs differ from the resource's fails naming the property and
// changes nothing.
func TestImportByID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red", "size": 3})}})
	e.ok("up", "--yes")
	var id string
	for k := range e.resources() {
		id = k
	}
	name := e.byURNName()["a"]["inputs"].(map[string]any)["name"]

	e.ok("stack", "init", "prod")
	e.ok("config", "set", "testprov:store", string(e.store))
	imported := thing("a", map[string]any{"color": "red", "size": 3, "name": name})
	imported["options"] = map[string]any{"import": id}
	e.spec("one", map[string]any{"resources": []any{imported}})
	before, err := os.ReadFile(e.store.Path(id))
	if err != nil {
		t.Fatal(err)
	}

	got, r := e.counts("preview")
	want(t, "preview of the import", got, r, map[string]int{"import": 1, "create": 0})
	got, r = e.counts("up")
	want(t, "up of the import", got, r, map[string]int{"import": 1, "create": 0})
	if ids := e.ids(); len(ids) != 1 || !ids[id] {
		t.Fatalf("the import changed the store: %v", ids)
	}
	after, _ := os.ReadFile(e.store.Path(id))
	if string(after) != string(before) {
		t.Fatalf("the import rewrote the resource file:\n%s\nwas\n%s", after, before)
	}
	if res := e.exported("one", false)["a"]; res.ID != id || res.Outputs["color"] != "red" {
		t.Fatalf("prod's state of a: %+v", res)
	}
	got, r = e.counts("up")
	want(t, "up after the import", got, r, map[string]int{"import": 0, "create": 0, "update": 0, "create-replacement": 0})

	// Another resource imports the same ID with a different color.
	bad := thing("b", map[string]any{"color": "blue", "size": 3, "name": name})
	bad["options"] = map[string]any{"import": id}
	e.spec("one", map[string]any{"resources": []any{imported, bad}})
	r = e.run("up", "--yes")
	if r.Code == 0 {
		t.Fatalf("an import with different inputs succeeded: %s", r)
	}
	must(t, "the failed import", r.Stdout+r.Stderr, "color", `"b"`, id)
	if ids := e.ids(); len(ids) != 1 {
		t.Fatalf("the failed import changed the store: %v", ids)
	}
	after, _ = os.ReadFile(e.store.Path(id))
	if string(after) != string(before) {
		t.Fatalf("the failed import rewrote the resource file")
	}
	if _, ok := e.exported("one", false)["b"]; ok {
		t.Fatalf("the failed import is in state")
	}

	// prod now manages the resource: its destroy deletes it.
	e.spec("one", map[string]any{"resources": []any{imported}})
	e.destroyAll()
}
