package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpPlanNamingAnUnknownProject: a plan whose targets name a project
// the provider does not have (a hand-edited plan, or one of an older
// provider) is not a plan of this provider: exit 3 naming the plan file,
// not a complaint about a --target the user never gave, and no state.
func TestUpPlanNamingAnUnknownProject(t *testing.T) {
	dir := deployable(t)
	plan := filepath.Join(dir, "plan.json")
	ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--target", "network", "--out", plan)
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"network"`, `"bogus"`, 1)
	if edited == string(data) {
		t.Fatalf("the plan names no target network:\n%s", data)
	}
	if err := os.WriteFile(plan, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--plan", plan)
	if r.Code != 3 || !strings.Contains(r.Stderr, "plan.json names project bogus") || strings.Contains(r.Stderr, "--target") {
		t.Errorf("up --plan with an unknown target: exit %d, want 3 naming the plan and bogus\n%s", r.Code, r.Stderr)
	}
	if files := stateFiles(t, dir); len(files) != 0 {
		t.Errorf("the refused run left state: %v", files)
	}
}
