package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
)

// deletedWith returns custom resource name with input n, deleted with
// the resource named with ("": none).
func deletedWith(name string, n float64, with string) reg {
	r := custom(name, resource.PropertyMap{"n": n})
	if with != "" {
		r.req.DeletedWith = string(urn(with))
	}
	return r
}

// deletedURNs returns the names of the resources the plugin deleted (not
// in a preview), in order.
func (e *env) deletedNames() []string {
	var out []string
	for _, c := range e.plugin.CallsOf("Delete") {
		out = append(out, c.URN.Name())
	}
	return out
}

// journaledDelete reports whether the journal holds a successful delete of
// the resource named name.
func (e *env) journaledDelete(name string) bool {
	for _, en := range e.backend.Entries(project, stack) {
		if en.Kind == backend.EntrySuccess && en.New == nil && en.Old != nil && en.Old.URN == urn(name) {
			return true
		}
	}
	return false
}

// TestDeletedWith checks Pulumi's deletedWith: recorded in the state; a
// destroy deletes b, deleted with a, after a's dependents and before a
// but without calling its plugin (a's delete deletes it), c by its
// plugin; an up that drops b alone deletes it by its plugin.
func TestDeletedWith(t *testing.T) {
	e := newHostedEnv(t)
	prog := registers(nil, deletedWith("a", 1, ""), deletedWith("b", 2, "a"), deletedWith("c", 3, ""))
	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if b := e.find("b"); b == nil || b.DeletedWith != urn("a") {
		t.Fatalf("b is recorded as %+v, want deletedWith %s", b, urn("a"))
	}
	if res, err := e.hosted(engine.Up, prog); err != nil || res.Changes[engine.OpSame] != 4 {
		t.Fatalf("no-op up: %v, %v", err, res.Changes)
	}
	res, err := engine.Destroy(t.Context(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.deletedNames(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"a", "c"}) {
		t.Errorf("destroy called the plugin's Delete for %v, want a and c", got)
	}
	if res.Changes[engine.OpDelete] != 4 || len(e.snap().Resources) != 0 {
		t.Errorf("destroy: %v, %d resources left", res.Changes, len(e.snap().Resources))
	}
	if !e.journaledDelete("b") {
		t.Error("b's delete is not journaled: a crash after a's delete would fold b back, its deletedWith dangling")
	}

	if _, err := e.hosted(engine.Up, prog); err != nil {
		t.Fatal(err)
	}
	if _, err := e.hosted(engine.Up, registers(nil, deletedWith("a", 1, ""), deletedWith("c", 3, ""))); err != nil {
		t.Fatal(err)
	}
	if got := e.deletedNames(); !slices.Equal(got, []string{"a", "c", "b"}) && !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Errorf("dropping b alone deleted %v, want b deleted by its plugin", got)
	}
}

// TestDeletedWithReplaced checks a replacement of a: b, deleted with a,
// is replaced too (as Pulumi's engine does since a's delete deletes it),
// its old record deleted without its plugin; create-before-delete and
// delete-before-replace alike.
func TestDeletedWithReplaced(t *testing.T) {
	for _, dbr := range []bool{false, true} {
		t.Run(fmt.Sprintf("deleteBeforeReplace=%v", dbr), func(t *testing.T) {
			e := newHostedEnv(t)
			e.plugin.ReplaceKeys, e.plugin.DeleteBeforeReplace = []string{"n"}, dbr
			if _, err := e.hosted(engine.Up, registers(nil, deletedWith("a", 1, ""), deletedWith("b", 2, "a"))); err != nil {
				t.Fatal(err)
			}
			prog := registers(nil, deletedWith("a", 10, ""), deletedWith("b", 2, "a"))
			pre, err := e.hosted(engine.Preview, prog)
			if err != nil || pre.Changes[engine.OpReplace] != 2 {
				t.Fatalf("preview: %v, %v, want a and b replaced", err, pre.Changes)
			}
			res, err := e.hosted(engine.Up, prog)
			if err != nil || res.Changes[engine.OpReplace] != 2 {
				t.Fatalf("up: %v, %v, want a and b replaced", err, res.Changes)
			}
			if got := e.deletedNames(); !slices.Equal(got, []string{"a"}) {
				t.Errorf("the replacement called the plugin's Delete for %v, want a alone", got)
			}
			if got := e.plugin.Count("Create"); got != 4 {
				t.Errorf("%d creates, want 4 (a and b twice)", got)
			}
			b := e.find("b")
			if b == nil || b.DeletedWith != urn("a") || len(e.snap().Resources) != 4 { // the stack, the provider, a and b
				t.Errorf("after the replacement b is %+v among %d records", b, len(e.snap().Resources))
			}
		})
	}
}

// TestDeletedWithRefused checks a deletedWith that names the resource
// itself (its delete would never reach its plugin) or a resource not
// registered before it (which may make a cycle) is refused, naming both,
// and nothing is created.
func TestDeletedWithRefused(t *testing.T) {
	for _, with := range []string{"a", "later"} {
		t.Run(with, func(t *testing.T) {
			e := newHostedEnv(t)
			_, err := e.hosted(engine.Up, registers(nil, deletedWith("a", 1, with), deletedWith("later", 2, "")))
			if want := fmt.Sprintf("%s is deleted with %s, which is not a resource registered before it", urn("a"), urn(with)); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("up: %v, want %q", err, want)
			}
			if e.plugin.Count("Create") != 0 {
				t.Errorf("%d creates", e.plugin.Count("Create"))
			}
		})
	}
}

// TestReplaceWithRefused checks replaceWith and replacementTrigger, which
// the monitor says it does not support, are refused naming the resource
// when a registration carries them anyway (a transform may set them),
// and nothing is created.
func TestReplaceWithRefused(t *testing.T) {
	e := newHostedEnv(t)
	r := deletedWith("r", 1, "")
	r.req.ReplaceWith = []string{string(urn("x"))}
	_, err := e.hosted(engine.Up, registers(nil, r))
	if want := `test:index:Resource "r" uses replaceWith or replacementTrigger, which runner does not support yet`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("up: %v, want %q", err, want)
	}
	if e.plugin.Count("Create") != 0 {
		t.Errorf("%d creates", e.plugin.Count("Create"))
	}
}
