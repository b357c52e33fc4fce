package plugins

import (
	"reflect"
	"strings"
	"testing"
)

// A Check failure: up exits non-zero naming the resource and the property,
// and creates nothing.
func TestCheckFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{
		thing("ok", map[string]any{"color": "red"}),
		thing("bad", map[string]any{"checkFail": "widgetCount", "widgetCount": 3, "peer": map[string]any{"$output": "ok.color"}}),
	}})
	for _, args := range [][]string{{"preview"}, {"up", "--yes"}} {
		op := args[0]
		r := e.run(args...)
		if r.Code == 0 {
			t.Fatalf("%s with a Check failure succeeded: %s", op, r)
		}
		must(t, op+" with a Check failure", block(r.Stdout, "one"), "bad", "widgetCount")
	}
	if rs := e.byURNName(); rs["bad"] != nil {
		t.Fatalf("the resource that failed Check was created: %v", rs)
	}
	if _, ok := e.exported("one", false)["bad"]; ok {
		t.Fatalf("the resource that failed Check is in state")
	}
}

// A create that fails to initialize: the resource is in state with its ID
// and in the store once; the next up retries with an update that succeeds.
func TestInitError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"initError": true, "color": "red"})}})
	r := e.run("up", "--yes")
	if r.Code == 0 {
		t.Fatalf("up of a resource whose init fails succeeded: %s", r)
	}
	must(t, "up with an init error", r.Stdout+r.Stderr, "init failed on purpose")
	rs := e.resources()
	if len(rs) != 1 {
		t.Fatalf("the store holds %d resources after the init error, want 1", len(rs))
	}
	var id string
	for k, v := range rs {
		id = k
		if v["initFailed"] != true {
			t.Fatalf("the stored resource is not marked initFailed: %v", v)
		}
	}
	if st := e.exported("one", false)["a"]; st.ID != id || len(st.InitErrors) != 1 || st.InitErrors[0] != "init failed on purpose" {
		t.Fatalf("state holds a with id %q and init errors %q, want %q and the plugin's reason", st.ID, st.InitErrors, id)
	}

	// initError stays true: testprov fails only Create; Update clears it.
	got, r := e.counts("up")
	if r.Code != 0 {
		t.Fatalf("the retry failed: %s", r)
	}
	want(t, "the retry", got, r, map[string]int{"update": 1, "create": 0, "create-replacement": 0})
	rs = e.resources()
	if len(rs) != 1 || rs[id] == nil || rs[id]["initFailed"] == true {
		t.Fatalf("after the retry the store holds %v", rs)
	}
	if st := e.exported("one", false)["a"]; st.ID != id || len(st.InitErrors) != 0 {
		t.Fatalf("after the retry state holds a with id %q and init errors %q", st.ID, st.InitErrors)
	}
	got, r = e.counts("up")
	want(t, "up after the retry", got, r, map[string]int{"update": 0, "create": 0})
	e.destroyAll()
}

// A required provider config key is missing: up exits 3 with the command
// that sets it, and changes nothing.
func TestMissingProviderConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	e.ok("up", "--yes")
	before := e.exported("one", false)
	ids := e.ids()

	e.ok("config", "rm", "testprov:store")
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "blue"})}})
	r := e.fails(3, "up", "--yes")
	must(t, "up without testprov:store", r.Stdout+r.Stderr, "runner config set testprov:store")
	if strings.Count(r.Stdout+r.Stderr, "panic") > 0 {
		t.Fatalf("runner panicked: %s", r)
	}
	if got := e.ids(); len(got) != len(ids) {
		t.Fatalf("the store changed: %v, was %v", got, ids)
	}
	if after := e.exported("one", false); !reflect.DeepEqual(after, before) {
		t.Fatalf("project one's state changed:\n%v\nwas\n%v", after, before)
	}
	e.fails(3, "preview")
	r = e.fails(3, "up", "--yes", "--json")
	must(t, "up --json without testprov:store", r.Stdout, "runner config set testprov:store VALUE")

	// Once the key is set again, the change goes through.
	e.ok("config", "set", "testprov:store", string(e.store))
	got, r := e.counts("up")
	want(t, "up with the store set again", got, r, map[string]int{"update": 1, "create": 0})
	if c := e.byURNName()["a"]["inputs"].(map[string]any)["color"]; c != "blue" {
		t.Fatalf("a's color = %v, want blue", c)
	}
}
