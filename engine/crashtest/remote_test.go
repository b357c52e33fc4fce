package crashtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
	"github.com/runnerhq/runner/internal/killspan"
	"github.com/runnerhq/runner/internal/testserver"
)

// The remote rounds' settings, passed through the environment.
const (
	envConverge = "CRASHTEST_CONVERGE" // set on the run after a kill
	envDestroy  = "CRASHTEST_DESTROY_EVERY"
)

// destroying reports whether round destroys the stack (remote rounds: one
// round in four, when CRASHTEST_DESTROY_EVERY is set) instead of updating
// it.
func destroying(round int) bool {
	return os.Getenv(envDestroy) != "" && round%4 == 3
}

// remoteRound runs one up (or destroy) of a round against b. The run after a kill (envConverge) comes from another machine: the
// killed holder's lock is neither its own nor judged dead from there, so
// it waits for the lock's lease to expire and clears it as an operator
// would with `runner stack unlock`, then converges.
func remoteRound(b backend.Store, dir string, round int) error {
	ctx := context.Background()
	var err error
	for deadline := time.Now().Add(60 * time.Second); ; {
		if destroying(round) {
			_, err = engine.Destroy(ctx, options(b, dir))
		} else {
			_, err = engine.Up(ctx, options(b, dir), program(dir, round))
		}
		var locked *backend.LockedError
		if os.Getenv(envConverge) == "" || !errors.As(err, &locked) || time.Now().After(deadline) {
			return err
		}
		if locked.Stale {
			if err := b.ForceUnlock(ctx, "crash", "dev"); err != nil {
				return err
			}
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// otherMachine is the command prefix that runs a child as another machine
// (its own hostname and pid namespace), nil when unshare is refused here.
func otherMachine(t *testing.T) []string {
	cmd := []string{"unshare", "--uts", "--pid", "--fork", "--mount-proc"}
	if err := exec.Command(cmd[0], append(cmd[1:], "true")...).Run(); err != nil {
		return nil
	}
	return cmd
}

// remoteChild runs one round in a child process on the backend at url; as
// another machine when prefix is set.
func remoteChild(t *testing.T, prefix []string, url, dir string, round int, kill time.Duration, env []string) (killed bool, out string) {
	t.Helper()
	args := append(append([]string{}, prefix...), os.Args[0], "-test.run=^$")
	if prefix != nil {
		args = append(append([]string{}, prefix...), "sh", "-c", `hostname machine-b && exec "$0" "$@"`, os.Args[0], "-test.run=^$")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), env...), envChild+"="+dir, envRound+"="+strconv.Itoa(round), envBackend+"="+url,
		envDestroy+"=1", "RUNNER_LOCK_LEASE=1s")
	if prefix != nil {
		cmd.Env = append(cmd.Env, envConverge+"=1")
	}
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if kill > 0 {
		select {
		case err := <-done:
			return false, fmt.Sprint(buf.String(), err)
		case <-time.After(kill):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return true, buf.String()
		}
	}
	if err := <-done; err != nil {
		return false, fmt.Sprintf("%s%v", buf.String(), err)
	}
	return false, ""
}

// TestKillOnS3ConvergesFromAnotherMachine kills `up` and `destroy` on the
// s3 backend (gofakes3 on loopback) with SIGKILL at 20 moments; after each
// kill a run from another machine (another hostname and pid namespace)
// waits out the dead run's lease, clears its lock and converges: nothing
// created twice, nothing lost, no pending operation left.
func TestKillOnS3ConvergesFromAnotherMachine(t *testing.T) {
	other := needOtherMachine(t)
	srv := testserver.GoFakeS3(t)
	srv.SetEnv(t)
	killFromAnotherMachine(t, other, srv.URL, srv.Env)
}

// TestKillOnPostgresConvergesFromAnotherMachine does the same with the
// state in PostgreSQL: the killed run's session ends with it, and with it
// its locks, so the other machine's run takes them at once (recording the
// killed run as interrupted) and converges.
func TestKillOnPostgresConvergesFromAnotherMachine(t *testing.T) {
	other := needOtherMachine(t)
	srv := pgtest.Need(t)
	killFromAnotherMachine(t, other, srv.URL(srv.Database(t), true), nil)
}

func needOtherMachine(t *testing.T) []string {
	t.Helper()
	other := otherMachine(t)
	if other == nil {
		testserver.Unavailable(t, "unshare --uts --pid --fork --mount-proc is refused here (it needs root): the other machine cannot be simulated")
	}
	return other
}

// killFromAnotherMachine kills 20 rounds (ups and destroys) on the
// backend at url, each followed by a run from the other machine that
// must converge.
func killFromAnotherMachine(t *testing.T, other []string, url string, env []string) {
	t.Setenv(envBackend, url)
	t.Setenv(envDestroy, "1")
	dir := t.TempDir()
	start := time.Now()
	if _, out := remoteChild(t, nil, url, dir, 0, 0, env); out != "" {
		t.Fatalf("first up failed: %s", out)
	}
	span := killspan.New(time.Since(start))
	const kills = 20
	landed := 0
	for round := 1; landed < kills; round++ {
		if round > kills*4 {
			t.Fatalf("only %d of %d kills landed inside a run", landed, kills)
		}
		delay := span.Draw()
		began := time.Now()
		if killed, _ := remoteChild(t, nil, url, dir, round, delay, env); killed {
			landed++
		} else {
			span.Missed(time.Since(began))
		}
		if _, out := remoteChild(t, other, url, dir, round, 0, env); out != "" {
			t.Fatalf("round %d: the run from another machine after a kill at %s did not converge: %s", round, delay, out)
		}
		checkConverged(t, dir, round)
	}
	t.Logf("%d kills landed inside runs (the span of kill moments ended at %s)", landed, span.Len())
}
