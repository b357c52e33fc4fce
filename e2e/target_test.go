package e2e

import (
	"strings"
	"testing"
)

func TestTargets(t *testing.T) {
	dir := deployable(t)
	r := run(t, dir, "", nil, "--non-interactive", "up", "--yes", "--target", "ingress")
	if r.Code != 3 || !strings.Contains(r.Stderr, "ca (needed by ingress)") || !strings.Contains(r.Stderr, "network (needed by ingress)") {
		t.Fatalf("up --target of a project whose upstream was never deployed: exit %d\n%s", r.Code, r.Stderr)
	}
	r = run(t, dir, "", nil, "--non-interactive", "up", "--yes", "--target", "nope")
	if r.Code != 2 || !strings.Contains(r.Stderr, "ca, secrets, network, ingress, app") {
		t.Fatalf("unknown target: exit %d\n%s", r.Code, r.Stderr)
	}
	rows := summary(t, ok(t, dir, "--json", "up", "--yes", "--target", "ca", "--target", "network").Stdout)
	if len(rows) != 2 || rows["ca"]["result"] != "succeeded" || rows["network"]["result"] != "succeeded" {
		t.Fatalf("rows %v", rows)
	}
	rows = summary(t, ok(t, dir, "--json", "up", "--yes", "--target", "ingress").Stdout)
	if len(rows) != 1 || rows["ingress"]["result"] != "succeeded" {
		t.Fatalf("rows %v", rows)
	}
	// A preview of the whole graph: app (never deployed) reads its upstream
	// outputs, which now exist, and plans creates only for itself and secrets.
	rows = summary(t, ok(t, dir, "--json", "preview").Stdout)
	for _, p := range []string{"ca", "network", "ingress"} {
		if changes(rows[p]) != 0 {
			t.Errorf("%s: %v", p, rows[p]["counts"])
		}
	}
	for _, p := range []string{"secrets", "app"} {
		if changes(rows[p]) == 0 {
			t.Errorf("%s plans nothing", p)
		}
	}
}
