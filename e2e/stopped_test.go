package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUpOverAStoppedServiceSuggestsRefresh: the service was stopped behind
// runner's back. up (without --refresh) still believes in it, and its
// on_success check fails; the error must say what to do: run `runner
// refresh` (or `up --refresh`), after which up starts the service again.
func TestUpOverAStoppedServiceSuggestsRefresh(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes")
	pid := servicePID(t, dir)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; alive(pid) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}

	r := run(t, dir, "", nil, "--non-interactive", "up", "--yes")
	out := r.Stdout + r.Stderr
	if r.Code != 1 || !strings.Contains(out, "runner refresh") {
		t.Fatalf("up over a stopped service exited %d, want 1 suggesting `runner refresh`:\n%s", r.Code, out)
	}
	ok(t, dir, "--non-interactive", "refresh", "--yes")
	ok(t, dir, "--non-interactive", "up", "--yes")
}
