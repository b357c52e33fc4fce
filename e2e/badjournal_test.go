package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestADamagedJournalSaysWhatToDo: a journal line in the middle that is
// not JSON (a hand edit, a damaged disk; a crash only tears the last line)
// cannot be repaired; every command, stack repair included, must name the
// file and the line and say what to do, not only "line 2 is not a journal
// entry".
func TestADamagedJournalSaysWhatToDo(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	journal := journalFile(dir, "dev", "network")
	if err := os.WriteFile(journal, []byte("{\"kind\":\"open\",\"base\":\"none\"}\ngarbage{{\n{\"kind\":\"begin\",\"seq\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"preview", "--target", "network"}, {"stack", "repair", "--project", "network"}} {
		r := run(t, dir, "", nil, append([]string{"--non-interactive"}, args...)...)
		out := r.Stdout + r.Stderr
		for _, want := range []string{journal, "line 2", "move the journal"} {
			if r.Code == 0 || !strings.Contains(out, want) {
				t.Errorf("runner %s: exit %d, want a failure saying %q:\n%s", strings.Join(args, " "), r.Code, want, out)
			}
		}
	}
	if err := os.Rename(journal, journal+".damaged"); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "--non-interactive", "preview", "--target", "network")
}
