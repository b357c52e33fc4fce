package clouds

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
	"github.com/runnerhq/runner/internal/tmuxpane"
)

// TestTerminalUpAcrossAReplacedCluster: the terminal up (a preview, the
// question, then the plan it showed) across a cluster made again, whose
// kubeconfig is unknown when the plan is made. Issue 18 found it failing
// 4 projects and skipping 5 with "the plan says update, the step now is
// same"; TestPlanAcrossAReplacedCluster covers `up --plan`, and this the
// same plan followed after the question, in a real terminal (tmux).
func TestTerminalUpAcrossAReplacedCluster(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Unavailable(t, "tmux is not installed: the terminal up needs a real terminal (.ci/run installs tmux; locally: apt-get install tmux)")
	}
	e := maraWorkspace(t)
	e.ok("-p", "aws", "up", "--yes")
	e.deleteFromCloud("aws:eks/cluster:Cluster")

	cmd := []string{"env", "-i"}
	for _, kv := range e.environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "CI" {
			cmd = append(cmd, kv)
		}
	}
	cmd = append(cmd, "TERM=xterm-256color", binary, "--root", e.dir, "-s", "dev", "-p", "aws", "up", "--refresh")
	p := tmuxpane.Start(t, e.dir, os.Environ(), cmd)
	p.Wait = 4 * time.Minute
	p.Answer("Do you want to perform this update of stack dev?", "y")
	p.Wait = 5 * time.Minute
	code, out := p.Exit()
	if code != 0 || strings.Contains(out, "the plan says") {
		t.Fatalf("the terminal up across a replaced cluster: exit %d\n%s", code, out)
	}
	if n := len(e.ofType("aws:eks/cluster:Cluster")); n != 1 {
		t.Errorf("%d EKS clusters after the terminal up, want 1", n)
	}
	e.secondUpChangesNothing("aws")
}
