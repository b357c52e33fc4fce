package e2e

import (
	"os/exec"
	"regexp"
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
	m := hintRE.FindStringSubmatch(out)
	if r.Code != 1 || m == nil {
		t.Fatalf("up over a stopped service exited %d, want 1 suggesting a refresh then an up:\n%s", r.Code, out)
	}
	// The hints work as printed, from the folder runner ran in, though
	// runner is not on PATH (as after `make run`, which runs bin/runner).
	for _, hint := range m[1:] {
		sh := exec.Command("sh", "-c", hint)
		sh.Dir, sh.Env = dir, baseEnv()
		if b, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("the hint `%s` does not work as printed: %v\n%s", hint, err, b)
		}
	}
}

var hintRE = regexp.MustCompile("run `([^`]+ refresh --yes)` so that runner notices, then `([^`]+ up --yes)` starts it again")
