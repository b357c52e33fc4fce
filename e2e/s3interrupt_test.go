package e2e

import (
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testserver"
)

// TestS3CtrlCWhileARenewalIsPending: an up on an s3:// stack whose stack
// lock's lease renewals the store holds (20 s each: a slow or unreachable
// store) is interrupted (SIGINT) once a renewal is pending and the lease
// no longer fresh, so that the next step, or a project's commit, must
// renew before it goes on (each project's lock is taken 0.7 s late, so
// that the first starts its steps after that). The up must end within a few seconds with exit 130; before the fix
// the renewal a step's Confirm made ignored the run's context and the up
// waited for the store (up to 30 s). The next up converges.
func TestS3CtrlCWhileARenewalIsPending(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	dir, env := s3Workspace(t, srv)
	env = append(env, "RUNNER_LOCK_LEASE=1s")
	var slow atomic.Bool
	pending, release := make(chan struct{}, 1), make(chan struct{})
	var releaseOnce sync.Once
	let := func() { slow.Store(false); releaseOnce.Do(func() { close(release) }) }
	srv.Intercept(func(r *http.Request) {
		if slow.Load() && r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*" && strings.HasSuffix(r.URL.Path, "/runner.json") {
			time.Sleep(700 * time.Millisecond) // each project starts once the stack lock's lease is no longer fresh
		}
		if slow.Load() && r.Method == http.MethodPut && r.Header.Get("If-Match") != "" &&
			strings.HasSuffix(r.URL.Path, "/.runner/stacks/dev/lock.json") {
			select {
			case pending <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
	})
	t.Cleanup(func() { let(); srv.Intercept(nil) })
	slow.Store(true)
	a, out := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	select {
	case <-pending:
	case <-time.After(60 * time.Second):
		_ = a.Process.Kill()
		_ = a.Wait()
		t.Fatalf("the up renewed no lease within 60 s:\n%s", out)
	}
	time.Sleep(1500 * time.Millisecond) // past half the lease: a step or a commit must renew
	_ = a.Process.Signal(syscall.SIGINT)
	interrupted := time.Now()
	done := make(chan error, 1)
	go func() { done <- a.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(40 * time.Second):
		_ = a.Process.Signal(syscall.SIGQUIT) // its goroutines, to the output
		<-done
		t.Fatalf("the up did not end within 40 s of Ctrl-C:\n%s", out)
	}
	took := time.Since(interrupted)
	let()
	t.Logf("the up ended %s after Ctrl-C", took.Round(time.Millisecond))
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("the interrupted up ended with %v, want exit 130:\n%s", err, out)
	}
	// The run's own summary must be true: a project that committed
	// nothing (its lease could not be proven) did not have its state
	// saved; its journal keeps its steps. Before, the summary said the
	// state of every project was saved.
	if got := out.String(); !strings.Contains(got, "nothing was committed") || strings.Contains(got, "the state of every project was saved:") ||
		!strings.Contains(got, "was not saved (") {
		t.Errorf("the interrupted up's summary does not say which projects' state only their journals keep:\n%s", got)
	}
	if took > 6*time.Second {
		t.Errorf("the up took %s to end after Ctrl-C with a renewal pending, want a few seconds at most:\n%s", took.Round(time.Millisecond), out)
	}
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("the next up did not converge (exit %d):\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
