package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hand-edited and hostile files in the folder backend's Pulumi layout
// (.runner/.pulumi): each is refused naming the file and what to do, and
// nothing is lost.

// TestACorruptCheckpointIsPutBackFromItsBak: a checkpoint cut short fails
// preview naming the file and the `stack import` of the .bak beside it;
// that command works as given (stack import takes a Pulumi checkpoint, the
// .bak's form, not only an export), after which up changes nothing.
func TestACorruptCheckpointIsPutBackFromItsBak(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	// A second write of the checkpoint makes the .bak (an up that changes
	// nothing writes nothing): an import of its own export.
	export := filepath.Join(t.TempDir(), "network.json")
	ok(t, dir, "-s", "dev", "stack", "export", "--project", "network", "--file", export)
	ok(t, dir, "-s", "dev", "stack", "import", "--project", "network", "--file", export)
	snap := checkpointFile(dir, "dev", "network")
	if _, err := os.Stat(snap + ".bak"); err != nil {
		t.Fatalf("no .bak beside the checkpoint after its second write: %v", err)
	}
	data, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "--non-interactive", "preview", "--target", "network")
	want := "stack import --project network --file " + snap + ".bak"
	if out := r.Stdout + r.Stderr; r.Code != 1 || !strings.Contains(out, snap) || !strings.Contains(out, want) {
		t.Errorf("preview of a cut checkpoint exited %d, want 1 naming %s and `%s`:\n%s", r.Code, snap, want, out)
	}
	ok(t, dir, "-s", "dev", "stack", "import", "--project", "network", "--file", snap+".bak")
	r = ok(t, dir, "--json", "--non-interactive", "up", "--yes", "--target", "network", "--target", "secrets")
	for project, row := range summary(t, r.Stdout) {
		if n := changes(row); n != 0 {
			t.Errorf("up after putting the .bak back changed %d resources of %s", n, project)
		}
	}
}

// TestADanglingCheckpointLinkIsRefused: a checkpoint replaced by a link to
// a file that is gone is refused naming it (exit 3), not taken for a
// project with no state, which up would create all over again.
func TestADanglingCheckpointLinkIsRefused(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	snap := checkpointFile(dir, "dev", "network")
	moved := filepath.Join(t.TempDir(), "network.json")
	if err := os.Rename(snap, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "gone.json"), snap); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--non-interactive", "preview", "--target", "network"}, {"--non-interactive", "up", "--yes", "--target", "network"}} {
		r := run(t, dir, "", nil, args...)
		if out := r.Stdout + r.Stderr; r.Code != 3 || !strings.Contains(out, snap) || !strings.Contains(out, "symbolic link") {
			t.Errorf("%s with the checkpoint a dangling link exited %d, want 3 naming %s:\n%s", args[1], r.Code, snap, out)
		}
	}
	if st, err := os.Lstat(snap); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced: %v", err)
	}
	if err := os.Remove(snap); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, snap); err != nil {
		t.Fatal(err)
	}
	r := ok(t, dir, "--json", "--non-interactive", "up", "--yes", "--target", "network")
	for project, row := range summary(t, r.Stdout) {
		if n := changes(row); n != 0 {
			t.Errorf("up with the checkpoint put back changed %d resources of %s", n, project)
		}
	}
}

// TestAPulumiLockFromAnotherHostNamesItsFile: a lock file the Pulumi CLI
// left on another machine refuses up with exit 4 naming the file to remove
// once that CLI no longer runs (runner cannot judge its liveness), and
// `runner stack unlock --force` clears it.
func TestAPulumiLockFromAnotherHostNamesItsFile(t *testing.T) {
	dir := deployable(t)
	lock := filepath.Join(dir, ".runner", ".pulumi", "locks", "organization", "network", "dev", "0b9e.json")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	if err := os.WriteFile(lock, []byte(`{"pid":4242,"username":"carol","hostname":"otherbox","timestamp":"2026-11-27T10:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	if out := r.Stdout + r.Stderr; r.Code != 4 || !strings.Contains(out, "clear its lock file "+lock+" with `runner stack unlock --project network --force`") {
		t.Errorf("up beside another host's Pulumi lock exited %d, want 4 naming %s to clear:\n%s", r.Code, lock, out)
	}
	ok(t, dir, "-s", "dev", "stack", "unlock", "--project", "network", "--force")
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
}

// TestAnEmptiedMetaYamlSaysWhatToWrite: a .pulumi/meta.yaml emptied by
// hand refuses the stack commands (exit 3) saying what to write into it,
// where it said only to use another folder; once written, every stack is
// as it was.
func TestAnEmptiedMetaYamlSaysWhatToWrite(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	meta := filepath.Join(dir, ".runner", ".pulumi", "meta.yaml")
	if err := os.WriteFile(meta, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "stack", "ls")
	if out := r.Stdout + r.Stderr; r.Code != 3 || !strings.Contains(out, `write "version: 1" into `+meta) {
		t.Errorf("stack ls with meta.yaml emptied exited %d, want 3 saying what to write into %s:\n%s", r.Code, meta, out)
	}
	if err := os.WriteFile(meta, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = ok(t, dir, "-s", "dev", "stack", "ls")
	if !strings.Contains(r.Stdout, "network") {
		t.Errorf("stack ls once meta.yaml is written again:\n%s", r.Stdout)
	}
}
