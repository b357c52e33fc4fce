package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStacksThePulumiCLIMadeAreOpened: a stack the Pulumi CLI wrote in the
// workspace's state folder (`pulumi login file://<workspace>/.runner`:
// compact checkpoints, gocloud's .attrs beside them, a gzipped one) is
// listed and exported by runner, and a lock file Pulumi holds there
// refuses runner's up of that project with exit 4 naming the Pulumi user.
func TestStacksThePulumiCLIMadeAreOpened(t *testing.T) {
	dir := deployable(t)
	state := filepath.Join(dir, ".runner", ".pulumi")
	files := map[string]string{
		"meta.yaml":                                "version: 1\n",
		"stacks/web/prod.json":                     `{"version":3,"checkpoint":{"stack":"organization/web/prod","latest":{"manifest":{"time":"2026-11-28T10:00:00Z","magic":"","version":"v3.246.0"},"resources":[{"urn":"urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod","custom":false,"type":"pulumi:pulumi:Stack","outputs":{"site":"https://example.com"}}]}}}`,
		"stacks/web/prod.json.attrs":               `{"user.cache_control":"","user.content_type":"application/json"}`,
		"locks/organization/network/dev/7f3e.json": `{"pid":4242,"username":"alice","hostname":"laptop","timestamp":"2026-11-28T10:00:00Z"}`,
	}
	for name, data := range files {
		path := filepath.Join(state, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := ok(t, dir, "-s", "prod", "stack", "ls")
	if !strings.Contains(r.Stdout, "prod") || !strings.Contains(r.Stdout, "web") {
		t.Errorf("stack ls does not list the stack Pulumi made:\n%s", r.Stdout)
	}
	r = ok(t, dir, "-s", "prod", "stack", "export", "--project", "web")
	if !strings.Contains(r.Stdout, `"deployment"`) || !strings.Contains(r.Stdout, "https://example.com") {
		t.Errorf("stack export of the stack Pulumi made:\n%s", r.Stdout)
	}
	r = run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	if out := r.Stdout + r.Stderr; r.Code != 4 || !strings.Contains(out, "the Pulumi CLI (alice)") || !strings.Contains(out, "host laptop") {
		t.Errorf("up beside a Pulumi lock of network: exit %d, want 4 naming alice on laptop:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	os.Remove(filepath.Join(state, "locks", "organization", "network", "dev", "7f3e.json"))
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
}
