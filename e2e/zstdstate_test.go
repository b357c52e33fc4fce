package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
)

// zstdDeployment is a Pulumi deployment of project web on stack prod with
// one output, as `pulumi stack export` prints it.
const zstdDeployment = `{"version":3,"deployment":{"manifest":{"time":"2026-11-28T10:00:00Z","magic":"","version":"v3.274.1"},` +
	`"resources":[{"urn":"urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod","custom":false,"type":"pulumi:pulumi:Stack","outputs":{"site":"https://example.com"}}]}}`

// pulumiForTests is the Pulumi CLI .ci/pulumicli builds (or one on PATH),
// "" when there is none.
func pulumiForTests() string {
	if p, err := exec.LookPath("pulumi"); err == nil {
		return p
	}
	cache := os.Getenv("RUNNER_CI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "runner-ci")
	}
	p := filepath.Join(cache, "pulumi-cli-v3.274.1", "pulumi")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// writeZstdStack writes web/prod into the workspace's state folder as the
// Pulumi CLI does with PULUMI_DIY_BACKEND_ZSTD=true: by that CLI when
// there is one, else encoded here in its format (a version 3 checkpoint,
// zstd-compressed, at .pulumi/stacks/web/prod.json.zst).
func writeZstdStack(t *testing.T, dir string) {
	t.Helper()
	state := filepath.Join(dir, ".runner")
	if bin := pulumiForTests(); bin != "" {
		os.MkdirAll(state, 0o755)
		proj := t.TempDir()
		os.WriteFile(filepath.Join(proj, "Pulumi.yaml"), []byte("name: web\nruntime: yaml\n"), 0o644)
		os.WriteFile(filepath.Join(proj, "prod.json"), []byte(zstdDeployment), 0o644)
		env := append(baseEnv(), "PULUMI_HOME="+filepath.Join(t.TempDir(), "home"), "PULUMI_SKIP_UPDATE_CHECK=1",
			"PULUMI_DIY_BACKEND_ZSTD=true", "PULUMI_BACKEND_URL=file://"+state)
		for _, args := range [][]string{{"stack", "init", "prod"}, {"stack", "import", "--stack", "prod", "--force", "--file", "prod.json"}} {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = proj, env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pulumi %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		t.Logf("the stack was written by %s", bin)
	} else {
		cp, err := backend.ToCheckpoint("web", "prod", []byte(zstdDeployment))
		if err != nil {
			t.Fatal(err)
		}
		data, err := backend.Compress(backend.ZstdExt, cp)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(state, ".pulumi", "stacks", "web", "prod.json.zst")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(filepath.Join(state, ".pulumi", "meta.yaml"), []byte("version: 1\n"), 0o644)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(state, ".pulumi", "stacks", "web", "prod.json.zst")); err != nil {
		t.Fatalf("no zstd checkpoint was written: %v", err)
	}
}

// TestZstdCheckpointsThePulumiCLIWroteAreRead: a stack the Pulumi CLI
// wrote with PULUMI_DIY_BACKEND_ZSTD=true (<stack>.json.zst) is listed,
// its outputs and export read, and an import writes it back compressed the
// same way (no plain checkpoint beside it). Before, runner refused it
// with advice to re-import it plain.
func TestZstdCheckpointsThePulumiCLIWroteAreRead(t *testing.T) {
	dir := deployable(t)
	writeZstdStack(t, dir)
	r := ok(t, dir, "-s", "prod", "stack", "ls")
	if !strings.Contains(r.Stdout, "prod") || !strings.Contains(r.Stdout, "web") {
		t.Errorf("stack ls does not list the zstd stack:\n%s", r.Stdout)
	}
	ok(t, dir, "stack", "init", "prod")
	r = ok(t, dir, "-s", "prod", "stack", "output", "--project", "web")
	if !strings.Contains(r.Stdout, "https://example.com") {
		t.Errorf("stack output of the zstd stack:\n%s", r.Stdout)
	}
	r = ok(t, dir, "-s", "prod", "stack", "export", "--project", "web")
	if !strings.Contains(r.Stdout, `"deployment"`) || !strings.Contains(r.Stdout, "https://example.com") {
		t.Errorf("stack export of the zstd stack:\n%s", r.Stdout)
	}
	changed := filepath.Join(dir, "changed.json")
	os.WriteFile(changed, []byte(strings.Replace(r.Stdout, "https://example.com", "https://example.org", 1)), 0o644)
	ok(t, dir, "-s", "prod", "stack", "import", "--project", "web", "--file", changed)
	stacks := filepath.Join(dir, ".runner", ".pulumi", "stacks", "web")
	if _, err := os.Stat(filepath.Join(stacks, "prod.json")); err == nil {
		t.Errorf("the import wrote a plain checkpoint beside the zstd one")
	}
	data, err := os.ReadFile(filepath.Join(stacks, "prod.json.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := backend.Decompress(backend.ZstdExt, data); err != nil || !strings.Contains(string(plain), "https://example.org") {
		t.Errorf("the imported checkpoint is not the zstd form of the import: %v", err)
	}
	r = ok(t, dir, "-s", "prod", "stack", "output", "--project", "web")
	if !strings.Contains(r.Stdout, "https://example.org") {
		t.Errorf("stack output after the import:\n%s", r.Stdout)
	}
}
