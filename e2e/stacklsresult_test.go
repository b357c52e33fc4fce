package e2e

import (
	"encoding/json"
	"syscall"
	"testing"
)

// TestStackLsShowsTheResultOfANoopRun: an up that fails (app's service
// is stopped, so its on_success hook fails) and then, the service
// continued, an up that changes nothing and succeeds: `stack ls` says succeeded, for the stack and for app.
// Both runs change nothing, so each is recorded only in the stack's own
// history, which `stack ls` did not read: it said succeeded after the
// failure (the first up's records), and failed after a success that
// followed a failure recorded by a project.
func TestStackLsShowsTheResultOfANoopRun(t *testing.T) {
	dir := workspace(t)
	if r := run(t, dir, adminPassword, nil, "-s", "dev", "config", "set", "--secret", "app:adminPassword"); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	t.Cleanup(func() { run(t, dir, "", nil, "--non-interactive", "destroy", "--yes") })
	ok(t, dir, "--non-interactive", "up", "--yes")

	// The service is stopped (SIGSTOP): app's on_success hook finds it
	// does not answer, and the up that changes nothing fails.
	pid := servicePID(t, dir)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	if r := run(t, dir, "", nil, "--non-interactive", "up", "--yes"); r.Code != 1 {
		t.Fatalf("the up with the service stopped exited %d, want 1:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if got := stackLsResult(t, ok(t, dir, "stack", "ls", "--json").Stdout); got.stack != "failed" {
		t.Fatalf("after the failed up stack ls says %+v, want the stack failed", got)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for p, row := range summary(t, ok(t, dir, "--non-interactive", "--json", "up", "--yes").Stdout) {
		if changes(row) != 0 {
			t.Fatalf("the up with the service continued changed %s", p)
		}
	}
	if got := stackLsResult(t, ok(t, dir, "stack", "ls", "--json").Stdout); got.stack != "succeeded" || got.app != "succeeded" {
		t.Errorf("after the no-op up that succeeded stack ls says %+v, want succeeded", got)
	}
}

type lsResult struct{ stack, app string }

// stackLsResult reads stack dev's and project app's last result from
// `stack ls --json`.
func stackLsResult(t *testing.T, out string) lsResult {
	t.Helper()
	var list []struct {
		Name       string `json:"name"`
		LastResult string `json:"lastResult"`
		Projects   []struct {
			Name       string `json:"name"`
			LastResult string `json:"lastResult"`
		} `json:"projects"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("stack ls --json: %v\n%s", err, out)
	}
	var r lsResult
	for _, s := range list {
		if s.Name != "dev" {
			continue
		}
		r.stack = s.LastResult
		for _, p := range s.Projects {
			if p.Name == "app" {
				r.app = p.LastResult
			}
		}
	}
	return r
}
