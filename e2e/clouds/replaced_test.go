package clouds

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deleteFromCloud removes every resource of typ from the fake cloud, as
// someone deleting it by hand (or AWS losing it) would.
func (e *env) deleteFromCloud(typ string) {
	e.t.Helper()
	paths, err := filepath.Glob(filepath.Join(e.cloud, "*", "*.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			e.t.Fatal(err)
		}
		if strings.Contains(string(data), `"type":"`+typ+`"`) || strings.Contains(string(data), `"type": "`+typ+`"`) {
			if err := os.Remove(p); err != nil {
				e.t.Fatal(err)
			}
			n++
		}
	}
	if n == 0 {
		e.t.Fatalf("the fake cloud holds no %s", typ)
	}
}

// TestPlanAcrossAReplacedCluster: with the EKS cluster gone and made
// again, its kubeconfig is unknown at preview, so every Kubernetes
// project's provider has an unknown configuration. Steps planned then may
// turn out same at up: up --plan and the terminal up must follow such a
// plan (they failed with "the plan says update, the step now is same"),
// preview and up list the same projects' changes, and both show the
// Kubernetes provider's own update.
func TestPlanAcrossAReplacedCluster(t *testing.T) {
	e := maraWorkspace(t)
	e.ok("-p", "aws", "up", "--yes")
	e.deleteFromCloud("aws:eks/cluster:Cluster")
	plan := filepath.Join(e.dir, "..", "plan.json")
	preview := events(t, e.ok("-p", "aws", "--json", "preview", "--refresh", "--out", plan))
	up := e.run("-p", "aws", "--json", "up", "--plan", plan)
	if up.Code != 0 || strings.Contains(up.Stdout+up.Stderr, "the plan says") {
		t.Fatalf("up --plan of a preview made while the cluster's kubeconfig was unknown: %s", up)
	}
	reconfigured := func(evs []event) []string {
		var out []string
		for _, ev := range evs {
			if ev.Type == "step-done" && ev.Op == "update" && strings.Contains(ev.URN, "::pulumi:providers:kubernetes::") {
				out = append(out, ev.Project)
			}
		}
		slices.Sort(out)
		return out
	}
	shown, done := reconfigured(preview), reconfigured(events(t, up))
	if len(shown) < 9 || !slices.Equal(shown, done) {
		t.Errorf("the Kubernetes provider's update: preview shows it in %v, up in %v; want the same 9 or more projects", shown, done)
	}
	for _, ev := range preview {
		if ev.Type == "step-done" && ev.Op == "update" && slices.ContainsFunc(ev.Keys, func(k string) bool { return k == "apiVersion" || k == "kind" }) {
			t.Errorf("preview names %v as changing in %s: the plugin's own defaults, which up does not change", ev.Keys, ev.URN)
		}
	}
	if n := len(e.ofType("aws:eks/cluster:Cluster")); n != 1 {
		t.Errorf("%d EKS clusters after up --plan, want 1", n)
	}
	e.secondUpChangesNothing("aws")
}
