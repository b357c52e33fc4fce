package clouds

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/e2e/fakecloud"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/killspan"
)

// kills is how many SIGKILLs must land inside a first up, per provider.
const kills = 30

// TestKillAnywhereConverges is issue 18's judged kill test: SIGKILL of the
// runner process at 30 random moments of a first `up -p local` and of a
// first `up -p aws` (against the fake plugins). Each time the next `up`
// exits 0 with no `stack unlock` or `stack repair` (the dead run's locks
// are taken over, its interrupted creates read back and adopted or made
// again), nothing is left pending, and what runs matches the state: the
// fake cloud holds exactly the state's resources, each once, and no create
// of the fake cloud's call log was made twice; `-p local` runs exactly one
// service of the workspace, the one in the state. Kill moments are spread
// over an undisturbed first up's measured length; a kill that comes after
// the run ended does not count, and shrinks the span.
func TestKillAnywhereConverges(t *testing.T) {
	for _, c := range []struct {
		provider string
		setup    func(testing.TB) *env
	}{{"local", localWorkspace}, {"aws", maraWorkspace}} {
		t.Run(c.provider, func(t *testing.T) { killRounds(t, c.provider, c.setup(t), kills) })
	}
}

// localWorkspace is a workspace of stack dev ready for `up -p local`.
func localWorkspace(t testing.TB) *env {
	t.Helper()
	e := newEnv(t, "us-west-1")
	e.setSecret("app:adminPassword", "kill-test-admin-pw-41")
	return e
}

// killRounds runs kills (SIGKILLs that landed inside a first up) of one
// provider as parallel subtests, each
// retried until its kill lands inside a run (a kill after the run ended
// shrinks the span the kill moments are drawn from).
func killRounds(t *testing.T, provider string, base *env, kills int) {
	// Creates take a little time, as a real cloud's do, so that kills land
	// inside them (-p aws has about 60, 8 at a time).
	base.extra = append(base.extra, "FAKECLOUD_CREATE_DELAY=100ms")
	first := base.clone()
	began := time.Now()
	first.ok("-p", provider, "up", "--yes")
	undisturbed := time.Since(began)
	span := killspan.New(undisturbed)
	first.converged(provider, "an undisturbed up")
	start := time.Now()
	var missed, creates atomic.Int32
	t.Cleanup(func() {
		t.Logf("-p %s: %d kills landed inside first ups (%d more came after the run ended; %d cut a create short), %s in all; an undisturbed first up took %s",
			provider, kills, missed.Load(), creates.Load(), time.Since(start).Round(time.Millisecond), undisturbed.Round(time.Millisecond))
	})
	for i := 1; i <= kills; i++ {
		t.Run(fmt.Sprintf("kill%02d", i), func(t *testing.T) {
			t.Parallel()
			for try := 1; ; try++ {
				if try > 5 {
					t.Fatalf("no kill landed inside a run in 5 tries")
				}
				e := base.clone()
				e.t = t
				delay := span.Draw()
				killed, ran := e.killedAfter(delay, "-p", provider, "up", "--yes")
				if !killed {
					missed.Add(1)
					span.Missed(ran)
				}
				r := e.run("-p", provider, "up", "--yes")
				if r.Code != 0 {
					t.Fatalf("the up after a kill %s into a first up failed:\n%s", delay, r)
				}
				if strings.Contains(r.Stdout+r.Stderr, "interrupted while creating") {
					creates.Add(1)
				}
				e.converged(provider, fmt.Sprintf("after a kill %s into a first up", delay))
				e.stopServices()
				if killed {
					return
				}
			}
		})
	}
}

// clone returns a new world holding a copy of e's workspace (config and
// answers, no state), with a fake cloud, HOME and kubeconfig of its own.
func (e *env) clone() *env {
	e.t.Helper()
	c := newEnv(e.t, "us-west-1")
	c.aws, c.extra = e.aws, e.extra
	copyTree(e.t, e.dir, c.dir)
	copyTree(e.t, e.home, c.home)
	e.t.Cleanup(c.stopServices)
	return c
}

// copyTree copies the regular files and folders under src into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// killedAfter runs runner with args and sends its process (itself, not its
// group) SIGKILL after delay. It reports whether the kill came while it
// ran, and how long it ran.
func (e *env) killedAfter(delay time.Duration, args ...string) (bool, time.Duration) {
	e.t.Helper()
	full := append([]string{"--root", e.dir, "-s", "dev", "--non-interactive"}, args...)
	cmd := exec.Command(binary, full...)
	cmd.Dir, cmd.Env = e.dir, e.environ()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
		return false, time.Since(start)
	case <-time.After(delay):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return ws.Signaled() && ws.Signal() == syscall.SIGKILL, time.Since(start)
	}
}

// stateResource is a resource of a project's state, as exported.
type stateResource struct {
	URN    string `json:"urn"`
	Type   string `json:"type"`
	ID     string `json:"id"`
	Custom bool   `json:"custom"`
}

// converged fails the test unless stack dev has nothing pending, no lock
// and no journal left, and what runs matches its state (see
// TestKillAnywhereConverges).
func (e *env) converged(provider, when string) {
	e.t.Helper()
	ctx := context.Background()
	b, err := backend.Open("file://" + filepath.Join(e.dir, ".runner"))
	if err != nil {
		e.t.Fatal(err)
	}
	projects, err := b.Projects(ctx, "dev")
	if err != nil {
		e.t.Fatal(err)
	}
	var live []stateResource
	for _, p := range projects {
		sum, err := b.Summary(ctx, p, "dev")
		if err != nil {
			e.t.Fatalf("%s: project %s: %v", when, p, err)
		}
		if sum.Pending > 0 || sum.Interrupted || sum.Locked != nil {
			e.t.Fatalf("%s: project %s has %d pending operations, journal left %v, lock %+v", when, p, sum.Pending, sum.Interrupted, sum.Locked)
		}
		data, err := b.Export(ctx, p, "dev")
		if err != nil {
			e.t.Fatal(err)
		}
		var dep struct {
			Deployment struct{ Resources []stateResource } `json:"deployment"`
		}
		if err := json.Unmarshal(data, &dep); err != nil {
			e.t.Fatal(err)
		}
		for _, r := range dep.Deployment.Resources {
			if r.Custom && !strings.HasPrefix(r.Type, "pulumi:providers:") {
				live = append(live, r)
			}
		}
	}
	if provider == "local" {
		e.oneService(live, when)
		return
	}
	e.cloudMatches(live, when)
}

// cloudMatches fails the test unless the fake cloud holds exactly the
// state's aws, digitalocean, linode and kubernetes resources, each once
// under its URN, and its call log shows no resource created twice.
func (e *env) cloudMatches(live []stateResource, when string) {
	e.t.Helper()
	want := map[string]string{} // type and ID -> URN
	for _, r := range live {
		if strings.HasPrefix(r.Type, "aws:") || strings.HasPrefix(r.Type, "kubernetes:") ||
			strings.HasPrefix(r.Type, "digitalocean:") || strings.HasPrefix(r.Type, "linode:") {
			want[r.Type+" "+r.ID] = r.URN
		}
	}
	got := map[string]string{}
	for _, r := range e.resources() {
		got[r.Type+" "+r.ID] = r.URN
		if want[r.Type+" "+r.ID] != r.URN {
			e.t.Errorf("%s: the fake cloud holds %s %s (%s), which the state does not", when, r.Type, r.ID, r.URN)
		}
	}
	for k, urn := range want {
		if got[k] != urn {
			e.t.Errorf("%s: the state holds %s (%s), which the fake cloud does not", when, k, urn)
		}
	}
	calls, err := fakecloud.Calls(e.cloud)
	if err != nil {
		e.t.Fatal(err)
	}
	made := map[string]int{}
	for _, c := range calls {
		switch c.Op {
		case "create":
			made[c.URN]++
		case "delete":
			made[c.URN]--
		}
		if made[c.URN] > 1 {
			e.t.Errorf("%s: %s was created twice (the fake cloud's calls: %+v)", when, c.URN, calls)
		}
	}
	if len(want) == 0 || len(want) != len(got) {
		e.t.Fatalf("%s: the state holds %d cloud resources, the fake cloud %d", when, len(want), len(got))
	}
}

// oneService fails the test unless exactly one service of the workspace
// runs, the process the state records.
func (e *env) oneService(live []stateResource, when string) {
	e.t.Helper()
	var recorded []string
	for _, r := range live {
		if r.Type == "process:index:Process" {
			recorded = append(recorded, r.ID)
		}
	}
	running := e.services()
	if len(recorded) != 1 || len(running) != 1 || fmt.Sprint(running[0]) != recorded[0] {
		e.t.Fatalf("%s: the state records the service processes %v, and %v run", when, recorded, running)
	}
}

// services returns the pids of the `runner serve-local` processes of the
// workspace that run.
func (e *env) services() []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(data), "\x00")
		if len(args) < 4 || args[1] != "serve-local" || !strings.Contains(string(data), "\x00"+e.dir+"\x00") {
			continue
		}
		var pid int
		fmt.Sscan(filepath.Base(filepath.Dir(p)), &pid)
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(stat), ") Z ") {
			out = append(out, pid)
		}
	}
	return out
}

// stopServices ends the services of the workspace (the kill test does not
// destroy each of its 30 stacks).
func (e *env) stopServices() {
	for _, pid := range e.services() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
