package plugins

import (
	"strings"
	"testing"
)

// TestFaultCrashInCreate: the plugin exits in the middle of project one's
// Create. One fails with the plugin's last stderr lines; three, which calls
// the shared plugin only after the crash (--parallel 1 runs one first), gets
// a new process and succeeds; the next run recovers the pending create
// through Read and creates nothing twice.
func TestFaultCrashInCreate(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{
		thing("a", map[string]any{"color": "red", "crash": "create"}),
	}})
	e.spec("three", map[string]any{"resources": []any{
		thing("t1", map[string]any{"color": "blue"}),
	}})
	r := e.fails(1, "up", "--yes", "--parallel", "1")
	for _, w := range []string{"testprov: crashing on purpose", "exited with status 2 during create", "pulumi-resource-testprov"} {
		if !strings.Contains(r.Stdout+r.Stderr, w) {
			t.Errorf("the failed up does not say %q: %s", w, r)
		}
	}
	if !summaryRow(r.Stdout, "three", "succeeded") || !summaryRow(r.Stdout, "one", "failed") {
		t.Fatalf("want one failed and three succeeded: %s", r)
	}
	if rs := e.byURNName(); len(rs) != 2 || rs["a"] == nil || rs["t1"] == nil {
		t.Fatalf("after the crash the cloud holds %v", rs)
	}

	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	r = e.ok("up", "--yes")
	if !strings.Contains(r.Stdout, "the interrupted create of urn:pulumi:dev::one::testprov:index:Thing::a did happen") {
		t.Errorf("the run after the crash did not say it adopted a: %s", r)
	}
	rs := e.byURNName()
	if len(rs) != 2 || len(e.resources()) != 2 {
		t.Fatalf("the run after the crash left %d resources (%v): %s", len(e.resources()), rs, r)
	}
	got, r := e.counts("preview")
	want(t, "preview after the recovery", got, r, map[string]int{"create": 0, "update": 0, "replace": 0, "delete": 0})
}

// summaryRow reports whether the summary table has project with result.
func summaryRow(out, project, result string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == project && f[2] == result {
			return true
		}
	}
	return false
}
