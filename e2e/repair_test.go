package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestStackRepairFixesDanglingReferences breaks a deployed project's state
// as a crash of an older version left it (its root stack resource and its
// default providers missing), so that preview fails with a dangling
// reference; `runner stack repair` fixes it, saying what it changed one
// line per fix, and preview, up and destroy work again.
func TestStackRepairFixesDanglingReferences(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	path := checkpointFile(dir, "dev", "ca")
	dropRootAndProviders(t, path)

	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "preview")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "dangling reference") {
		t.Fatalf("preview of a broken state: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = ok(t, dir, "-s", "dev", "stack", "repair", "--project", "ca")
	for _, want := range []string{"added the root stack resource", "added the provider", "pulumi:providers:"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("repair does not say %q:\n%s", want, r.Stdout)
		}
	}
	if lines := strings.Count(r.Stdout, "\n  - "); lines < 2 {
		t.Errorf("repair listed %d changes, want one line per fix:\n%s", lines, r.Stdout)
	}
	r = ok(t, dir, "-s", "dev", "stack", "repair", "--project", "ca")
	if !strings.Contains(r.Stdout, "nothing to repair") {
		t.Errorf("a second repair changed something:\n%s", r.Stdout)
	}
	ok(t, dir, "-s", "dev", "--non-interactive", "preview")
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	ok(t, dir, "-s", "dev", "--non-interactive", "destroy", "--yes")
}

// dropRootAndProviders removes the root stack resource and the provider
// resources from a snapshot file.
func dropRootAndProviders(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	dep := doc["checkpoint"].(map[string]any)["latest"].(map[string]any)
	var kept []any
	for _, r := range dep["resources"].([]any) {
		typ, _ := r.(map[string]any)["type"].(string)
		if typ == "pulumi:pulumi:Stack" || strings.HasPrefix(typ, "pulumi:providers:") {
			continue
		}
		kept = append(kept, r)
	}
	dep["resources"] = kept
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
