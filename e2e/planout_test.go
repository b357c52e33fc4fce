package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewOutOntoAFileRunnerKeeps: `preview --out` naming the stack
// config or the environment file exits 2 and leaves the file as it was
// (before, the plan replaced the stack config, secrets and salt included,
// and the plan itself was then refused as made before a config change).
func TestPreviewOutOntoAFileRunnerKeeps(t *testing.T) {
	dir := deployable(t)
	for _, rel := range []string{"config/pulumi/Pulumi.dev.yaml", "config/pulumi/environment"} {
		path := filepath.Join(dir, rel)
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := runAs(t, dir, "", nil, "-s", "dev", "--non-interactive", "preview", "--out", rel)
		if r.Code != 2 || !strings.Contains(r.Stderr, "give another --out") {
			t.Errorf("preview --out %s: exit %d, want 2 saying to give another --out\n%s", rel, r.Code, r.Stderr)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("preview --out %s replaced it:\n%s", rel, after)
		}
	}
}

// TestStackExportFileOntoAFileRunnerKeeps: `stack export --file` naming the
// stack config or the environment file exits 2 and leaves the file as it
// was (before, the export replaced the stack config and exited 0).
func TestStackExportFileOntoAFileRunnerKeeps(t *testing.T) {
	dir := deployable(t)
	for _, rel := range []string{"config/pulumi/Pulumi.dev.yaml", "config/pulumi/environment"} {
		path := filepath.Join(dir, rel)
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := runAs(t, dir, "", nil, "-s", "dev", "--non-interactive", "stack", "export", "--project", "network", "--file", rel)
		if r.Code != 2 || !strings.Contains(r.Stderr, "give another --file") {
			t.Errorf("stack export --file %s: exit %d, want 2 saying to give another --file\n%s", rel, r.Code, r.Stderr)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("stack export --file %s replaced it:\n%s", rel, after)
		}
	}
}
