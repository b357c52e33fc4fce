package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leaveServiceDeletePending makes the app project's state what an up
// killed in the middle of deleting the service leaves: the service process
// is gone, and the journal has the delete begun and never ended.
func leaveServiceDeletePending(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(checkpointFile(dir, "dev", "app"))
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Checkpoint struct {
			Latest struct {
				Resources []json.RawMessage `json:"resources"`
			} `json:"latest"`
		} `json:"checkpoint"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	var service json.RawMessage
	for _, r := range snap.Checkpoint.Latest.Resources {
		if strings.Contains(string(r), `"urn":"urn:pulumi:dev::app::process:index:Process::service"`) {
			service = r
		}
	}
	if service == nil {
		t.Fatalf("no service in the app project's state:\n%s", data)
	}
	sum := sha256.Sum256(data)
	journal := `{"kind":"open","base":"` + hex.EncodeToString(sum[:]) + `"}` + "\n" +
		`{"kind":"begin","seq":1,"op":"delete","old":` + string(service) + "}\n"
	if err := os.WriteFile(journalFile(dir, "dev", "app"), []byte(journal), 0o600); err != nil {
		t.Fatal(err)
	}
	pid := servicePID(t, dir)
	syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; alive(pid) && i < 500; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPreviewAfterAnInterruptedUpListsWhatUpDoes: an up killed while it
// deleted the service leaves a pending operation; the next up resolves it
// first (the service is gone, so it is created again), and preview must
// list the same steps.
func TestPreviewAfterAnInterruptedUpListsWhatUpDoes(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	leaveServiceDeletePending(t, dir)

	preview := changingSteps(t, ok(t, dir, "--json", "-s", "dev", "--non-interactive", "preview").Stdout)
	up := changingSteps(t, ok(t, dir, "--json", "-s", "dev", "--non-interactive", "up", "--yes").Stdout)
	if strings.Join(preview, "\n") != strings.Join(up, "\n") {
		t.Fatalf("preview listed %d steps:\n  %s\nup took %d:\n  %s", len(preview), strings.Join(preview, "\n  "),
			len(up), strings.Join(up, "\n  "))
	}
	if !listed(up, "app urn:pulumi:dev::app::process:index:Process::service create") {
		t.Fatalf("up did not create the service again:\n  %s", strings.Join(up, "\n  "))
	}
}
