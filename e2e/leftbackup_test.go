package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACheckpointLeftOnlyAsBakIsNotTakenForNoState: the Pulumi CLI's
// `stack rm` renames a stack's checkpoint to <stack>.json.bak (as does a
// crash while it changes the checkpoint's compression). Before, runner
// took the project for one never deployed, and up created its resources
// again beside the ones the backup records. Now up refuses naming the file
// and both ways on, a preview warns, and once the file is renamed back up
// goes on from that state (nothing created again).
func TestACheckpointLeftOnlyAsBakIsNotTakenForNoState(t *testing.T) {
	dir := deployable(t)
	up := []string{"-s", "dev", "--non-interactive", "up", "--yes", "--target", "network"}
	ok(t, dir, up...)
	cp := filepath.Join(dir, ".runner", ".pulumi", "stacks", "network", "dev.json")
	if err := os.Rename(cp, cp+".bak"); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, up...)
	if out := r.Stdout + r.Stderr; r.Code == 0 || !strings.Contains(out, cp+".bak") || !strings.Contains(out, "rename it without its .bak") {
		t.Fatalf("up of a project whose checkpoint is only a .bak: exit %d, want a refusal naming %s.bak:\n%s", r.Code, cp, out)
	}
	if _, err := os.Stat(cp); err == nil {
		t.Fatalf("the refused up wrote a checkpoint %s", cp)
	}
	r = ok(t, dir, "-s", "dev", "--non-interactive", "preview", "--target", "network")
	if !strings.Contains(r.Stdout+r.Stderr, cp+".bak") {
		t.Errorf("preview of a project whose checkpoint is only a .bak does not warn:\n%s%s", r.Stdout, r.Stderr)
	}
	if err := os.Rename(cp+".bak", cp); err != nil {
		t.Fatal(err)
	}
	r = ok(t, dir, up...)
	if strings.Contains(r.Stdout, "+ create") {
		t.Errorf("up from the restored checkpoint created resources again:\n%s", r.Stdout)
	}
}
