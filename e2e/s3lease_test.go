package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/testenv"
)

// TestS3StoppedHolderStartsNoStep: an up on an s3:// stack is stopped
// (SIGSTOP) past its lease while it holds the stack's lock and waits to
// take project network's (the server holds that request), machine-b
// clears the stale stack lock, and the up is continued (SIGCONT) with the
// renewals of its stack lock delayed: it takes network's lock afresh, but
// must start no step (before the fix it replaced app-port, which only the
// project lock's lease guarded) and must fail; the next up converges.
func TestS3StoppedHolderStartsNoStep(t *testing.T) {
	prefix := machineB(t)
	srv, dir, env, _ := s3Deployed(t, "RUNNER_LOCK_LEASE=1s")
	if r := run(t, dir, "", env, "-s", "dev", "config", "set", "app:port", freePort(t)); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	held, release := make(chan struct{}, 1), make(chan struct{})
	var releaseOnce sync.Once
	var slowStack atomic.Bool
	srv.Intercept(func(r *http.Request) {
		switch {
		case r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*" &&
			strings.HasSuffix(r.URL.Path, "/.pulumi/locks/organization/network/dev/runner.json"):
			select {
			case held <- struct{}{}:
			default:
			}
			<-release
		case r.Method == http.MethodPut && slowStack.Load() && strings.HasSuffix(r.URL.Path, "/.runner/stacks/dev/lock.json"):
			time.Sleep(4 * time.Second)
		}
	})
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }); srv.Intercept(nil) })
	a, aOut := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	select {
	case <-held:
	case <-time.After(60 * time.Second):
		_ = a.Process.Kill()
		_ = a.Wait()
		t.Fatalf("the up did not lock project network within 60 s:\n%s", aOut)
	}
	_ = a.Process.Signal(syscall.SIGSTOP)
	time.Sleep(3 * time.Second)
	u, uOut := startRunner(t, dir, env, prefix, "--non-interactive", "stack", "unlock")
	uErr := u.Wait()
	slowStack.Store(true)
	_ = a.Process.Signal(syscall.SIGCONT)
	releaseOnce.Do(func() { close(release) })
	aErr := a.Wait()
	slowStack.Store(false)
	if uErr != nil {
		t.Fatalf("machine-b's stack unlock of the stale locks: %v\n%s", uErr, uOut)
	}
	checkStartedNoStep(t, aErr, aOut.String())
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("the next up did not converge (exit %d):\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestFolderStoppedHolderStartsNoStep: an up on the folder backend holds
// the stack's lock and waits to take project network's (the test holds
// that lock and the flock a taker waits on); it is stopped (SIGSTOP)
// there, the test lets network's lock go, machine-b (sharing the folder)
// clears the stack lock once stale, its path becomes unreadable, and the
// up is continued (SIGCONT): it takes network's lock afresh but cannot
// prove its stack lock's lease, so it must start no step (before the fix
// no step checked the stack lock, whose heartbeat kept retrying) and must
// fail.
func TestFolderStoppedHolderStartsNoStep(t *testing.T) {
	dir := workspace(t)
	if r := run(t, dir, adminPassword, nil, "-s", "dev", "config", "set", "--secret", "app:adminPassword"); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	t.Cleanup(func() { run(t, dir, "", nil, "--non-interactive", "destroy", "--yes") })
	prefix := machineB(t)
	env := []string{"RUNNER_LOCK_LEASE=1s"}
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("first up exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, dir, "", env, "-s", "dev", "config", "set", "app:port", freePort(t)); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	ctx := context.Background()
	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := b.Lock(ctx, "network", "dev", backend.CurrentLockInfo("the test"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx, "network", "dev", backend.CurrentLockInfo("the test"))
	var locked *backend.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("a second lock of network: %v, want a *backend.LockedError naming the lock file", err)
	}
	f, err := os.Open(locked.File)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	a, aOut := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	waitForFlock(t, a, aOut)
	_ = a.Process.Signal(syscall.SIGSTOP)
	_, err = b.LockStack(ctx, "dev", backend.CurrentLockInfo("the test"))
	if !errors.As(err, &locked) {
		t.Fatalf("the stack lock while the up holds it: %v, want a *backend.LockedError naming the lock file", err)
	}
	stackLock := locked.File
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	f.Close() // the up, once continued, finds network's lock gone and takes it
	time.Sleep(3 * time.Second)
	u, uOut := startRunner(t, dir, env, prefix, "--non-interactive", "stack", "unlock")
	uErr := u.Wait()
	// The stack lock can no longer be read (as a store that cannot be
	// reached): the up cannot prove its lease, which ran out meanwhile.
	if err := os.Mkdir(stackLock, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = a.Process.Signal(syscall.SIGCONT)
	aErr := a.Wait()
	if err := os.Remove(stackLock); err != nil {
		t.Fatal(err)
	}
	if uErr != nil {
		t.Fatalf("machine-b's stack unlock of the stale lock: %v\n%s", uErr, uOut)
	}
	checkStartedNoStep(t, aErr, aOut.String())
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("the next up did not converge (exit %d):\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// waitForFlock waits until the process a waits for a flock (/proc/locks
// lists its request blocked).
func waitForFlock(t *testing.T, a *exec.Cmd, out *bytes.Buffer) {
	t.Helper()
	pid := " " + strconv.Itoa(a.Process.Pid) + " "
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		locks, err := os.ReadFile("/proc/locks")
		if err != nil {
			testenv.Unavailable(t, "cannot read /proc/locks: "+err.Error())
		}
		for _, line := range strings.Split(string(locks), "\n") {
			if strings.Contains(line, "->") && strings.Contains(line, "FLOCK") && strings.Contains(line, pid) {
				return
			}
		}
		if time.Now().After(deadline) {
			_ = a.Process.Kill()
			_ = a.Wait()
			t.Fatalf("the up did not wait for project network's lock within 60 s:\n%s", out)
		}
	}
}

// checkStartedNoStep fails the test unless the up whose locks expired and
// were cleared failed (err) without running the step that replaces
// app-port (out is its output).
func checkStartedNoStep(t *testing.T, err error, out string) {
	t.Helper()
	if err == nil {
		t.Errorf("the up whose locks expired and were cleared succeeded:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "replace") && strings.Contains(line, "app-port (") { // a step that ran, with its duration
			t.Errorf("the up started a step after its lease ran out: %q\n%s", line, out)
		}
	}
}
