package e2e

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testserver"
)

// runAsMachine runs the binary as another machine (its own hostname and
// pid namespace, through unshare) in dir with args after --root dir.
func runAsMachine(t *testing.T, host, dir string, env []string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--uts", "--pid", "--fork", "--mount-proc", "sh", "-c", `hostname "$0" && exec "$@"`, host, binary, "--root", dir}, args...)
	cmd := exec.CommandContext(ctx, "unshare", argv...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running runner %v as %s: %v", args, host, err)
	}
	return res
}

// TestTwoMachinesOneS3Stack starts `up` on one stack in one bucket from two
// machines at once (two hostnames and pid namespaces): exactly one runs,
// the other exits 4 naming the holder's host; then the second machine's
// next run converges. (The workspace's services run in the pid namespace
// of the machine that started them and end with it, so every up refreshes
// first.)
func TestTwoMachinesOneS3Stack(t *testing.T) {
	if exec.Command("unshare", "--uts", "--pid", "--fork", "--mount-proc", "true").Run() != nil {
		testserver.Unavailable(t, "unshare --uts --pid --fork --mount-proc is refused here (it needs root): two machines cannot be simulated")
	}
	srv := testserver.GoFakeS3(t)
	dir, env := s3Workspace(t, srv)
	for round := 0; round < 3; round++ {
		// Two runs started together may still not overlap on an idle
		// machine (one ends before the other starts): both then exit 0,
		// which proves nothing either way, so the pair is started again.
		// A lock that does not hold gives 0 and 0 every time and fails.
		var a, b Result
		for try := 0; try < 10; try++ {
			a, b = raceMachines(t, dir, env)
			if a.Code != 0 || b.Code != 0 {
				break
			}
		}
		if a.Code != 0 || b.Code != 4 {
			t.Fatalf("round %d: exits %d and %d, want 0 and 4\n--- one:\n%s%s\n--- other:\n%s%s", round, a.Code, b.Code, a.Stdout, a.Stderr, b.Stdout, b.Stderr)
		}
		if !strings.Contains(b.Stdout+b.Stderr, "on host machine-") || !strings.Contains(b.Stdout+b.Stderr, "runner up") {
			t.Fatalf("round %d: the refused run does not name the holder:\n%s%s", round, b.Stdout, b.Stderr)
		}
		if r := runAsMachine(t, "machine-b", dir, env, "--non-interactive", "up", "--yes", "--refresh"); r.Code != 0 {
			t.Fatalf("round %d: machine-b's next run: exit %d\n%s%s", round, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// raceMachines starts `up` from machine-a and machine-b at once and returns
// their results, a run that exited 4 (if any) second.
func raceMachines(t *testing.T, dir string, env []string) (Result, Result) {
	results := make(chan Result, 2)
	for _, h := range []string{"machine-a", "machine-b"} {
		go func() { results <- runAsMachine(t, h, dir, env, "--non-interactive", "up", "--yes", "--refresh") }()
	}
	a, b := <-results, <-results
	if a.Code == 4 {
		a, b = b, a
	}
	return a, b
}
