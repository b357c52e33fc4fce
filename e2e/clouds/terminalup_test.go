package clouds

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
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

	tmp := t.TempDir()
	socket, exitFile, errFile := filepath.Join(tmp, "tmux.sock"), filepath.Join(tmp, "exit"), filepath.Join(tmp, "stderr")
	cmd := []string{"env", "-i"}
	for _, kv := range e.environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "CI" {
			cmd = append(cmd, kv)
		}
	}
	cmd = append(cmd, "TERM=xterm-256color", binary, "--root", e.dir, "-s", "dev", "-p", "aws", "up", "--refresh")
	for i, a := range cmd {
		cmd[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := filepath.Join(tmp, "run.sh")
	body := strings.Join(cmd, " ") + " 2>" + errFile + "\necho $? > " + exitFile + ".tmp && mv " + exitFile + ".tmp " + exitFile + "\nsleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-x", "200", "-y", "50", "sh "+script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	screen := func() string { return tmux("capture-pane", "-p", "-S", "-3000") }
	const question = "Do you want to perform this update of stack dev?"
	waitUntil(t, 4*time.Minute, func() bool { return strings.Contains(screen(), question) }, func() string { return screen() })

	// Survey may drop keys that arrive with the terminal's reply to its
	// cursor query: type again until the answer shows.
	for attempt := 1; !strings.HasSuffix(lastLine(screen(), question), " y"); attempt++ {
		if attempt > 5 {
			t.Fatalf("typing y did not reach runner:\n%s", screen())
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
		tmux("send-keys", "-l", "y")
	}
	tmux("send-keys", "Enter")
	var code int
	waitUntil(t, 5*time.Minute, func() bool {
		b, err := os.ReadFile(exitFile)
		if err != nil {
			return false
		}
		code, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, func() string { return screen() })
	stderr, _ := os.ReadFile(errFile)
	out := screen() + string(stderr)
	if code != 0 || strings.Contains(out, "the plan says") {
		t.Fatalf("the terminal up across a replaced cluster: exit %d\n%s", code, out)
	}
	if n := len(e.ofType("aws:eks/cluster:Cluster")); n != 1 {
		t.Errorf("%d EKS clusters after the terminal up, want 1", n)
	}
	e.secondUpChangesNothing("aws")
}

// waitUntil polls done until it holds, failing with what() after limit.
func waitUntil(t *testing.T, limit time.Duration, done func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("not done within %s:\n%s", limit, what())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lastLine is the last line of screen that holds text, without its
// trailing blanks.
func lastLine(screen, text string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], text) {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}
