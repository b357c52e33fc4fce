package pulumiprojects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPulumiCLIOnRunnersStateFolder: the Pulumi CLI logged in to runner's
// own state folder (`pulumi login file://<workspace>/.runner`, no export or
// import) lists runner's stack, previews no change against runner's
// checkpoint, opens its secrets and shows runner's update in its history;
// after Pulumi's own no-op update rewrites the checkpoint in its form,
// runner reads it and plans no change either.
func TestPulumiCLIOnRunnersStateFolder(t *testing.T) {
	w, store := chainWorkspace(t)
	pl := newPulumi(t, w)
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "chain:token", secretToken)
	w.ok("-p", "e", "-s", "dev", "up", "--yes")

	chain := filepath.Join(w.dir, "chain")
	cfg, err := os.ReadFile(filepath.Join(w.dir, "config", "pulumi", "Pulumi.dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(chain, "Pulumi.dev.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	pl.login(chain, filepath.Join(w.dir, ".runner"))
	if r := pl.ok(chain, "stack", "ls", "--all"); !strings.Contains(r.Stdout, "\ndev ") {
		t.Errorf("pulumi stack ls --all does not list runner's stack:\n%s", r.Stdout)
	}
	pl.ok(chain, "stack", "select", "dev")
	if r := pl.ok(chain, "preview", "--expect-no-changes"); !strings.Contains(r.Stdout, "4 unchanged") {
		t.Errorf("pulumi preview on runner's checkpoint does not say 4 unchanged:\n%s", r.Stdout)
	}
	if r := pl.ok(chain, "stack", "output", "token", "--show-secrets"); strings.TrimSpace(r.Stdout) != secretToken {
		t.Errorf("pulumi stack output token --show-secrets = %q, want the secret runner stored", strings.TrimSpace(r.Stdout))
	}
	if r := pl.ok(chain, "stack", "history"); !strings.Contains(r.Stdout, "exec.kind: runner") || !strings.Contains(r.Stdout, "succeeded") {
		t.Errorf("pulumi stack history does not show runner's update:\n%s", r.Stdout)
	}
	pl.ok(chain, "up", "--yes", "--expect-no-changes")
	r := w.ok("-p", "e", "-s", "dev", "--json", "preview")
	if !strings.Contains(r.Stdout, `"op":"same"`) || strings.Contains(r.Stdout, `"op":"create"`) || strings.Contains(r.Stdout, `"op":"update"`) || strings.Contains(r.Stdout, `"op":"replace"`) {
		t.Errorf("runner plans changes on the checkpoint Pulumi rewrote:\n%s", r.Stdout)
	}
	if got, want := values(t, store), []string{"p-a", "p-a-b", "p-a-b-c"}; !equal(got, want) {
		t.Errorf("the store holds %v, want %v", got, want)
	}

	// While runner holds the project (its lock file in Pulumi's lock
	// folder, as runner writes it), the Pulumi CLI refuses to update it,
	// naming runner's host and pid.
	lock := filepath.Join(w.dir, ".runner", ".pulumi", "locks", "organization", "chain", "dev", "runner.json")
	body := `{"pid":4242,"host":"machine-a","user":"ci","started":"2026-11-28T10:00:00Z","command":"runner up","username":"ci","hostname":"machine-a","timestamp":"2026-11-28T10:00:00Z"}`
	if err := os.WriteFile(lock, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := pl.run(chain, "up", "--yes"); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "machine-a") {
		t.Errorf("pulumi up while runner holds the project: exit %d, want a refusal naming runner's host:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	os.Remove(lock)
}
