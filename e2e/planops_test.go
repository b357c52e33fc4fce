package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpPlanWithAnUnknownOperation: a plan whose step names an operation
// runner does not have (hand-edited, or of another version) is not a plan
// it can read: exit 3 before any project runs, the state left byte for
// byte (before, the projects ahead of it ran and rewrote their state, and
// the project failed at that step with exit 1).
func TestUpPlanWithAnUnknownOperation(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	plan := filepath.Join(dir, "plan.json")
	ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--out", plan)
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"op": "same",
          "urn": "urn:pulumi:dev::network::pulumi:pulumi:Stack::network-dev"`, `"op": "frobnicate",
          "urn": "urn:pulumi:dev::network::pulumi:pulumi:Stack::network-dev"`, 1)
	if edited == string(data) {
		t.Fatalf("the plan has no same step of network's stack:\n%s", data)
	}
	if err := os.WriteFile(plan, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	before := stateFiles(t, dir)
	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--plan", plan)
	if r.Code != 3 || !strings.Contains(r.Stderr, `"frobnicate"`) {
		t.Errorf("up --plan with an unknown operation: exit %d, want 3 naming it\n%s", r.Code, r.Stderr)
	}
	for path, data := range stateFiles(t, dir) {
		if before[path] != data {
			t.Errorf("the refused up changed %s", path)
		}
	}
}
