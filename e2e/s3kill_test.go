package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestS3KilledUpIsFoundUnderTheStackLock: an up killed (SIGKILL) after its
// journal's first segment is stored leaves that journal in the bucket; the
// next up, which lists the stack's journals once when it takes the stack
// lock (not each project's), takes the dead run's locks over, folds the
// journal in and converges: nothing is left to do, no segment is left, and
// the killed run is recorded as interrupted.
func TestS3KilledUpIsFoundUnderTheStackLock(t *testing.T) {
	srv, dir, env, obj := s3Deployed(t)
	if r := run(t, dir, "", env, "--non-interactive", "-s", "dev", "config", "set", "app:port", freePort(t)); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	var segments atomic.Int32
	second := make(chan struct{})
	srv.Intercept(func(r *http.Request) {
		// A journal's segments are written one after the other: when the
		// second arrives, the first is stored.
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/journal/") && segments.Add(1) == 2 {
			close(second)
		}
	})
	defer srv.Intercept(nil)
	a, out := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	select {
	case <-second:
		_ = syscall.Kill(a.Process.Pid, syscall.SIGKILL)
	case <-time.After(90 * time.Second):
		_ = a.Process.Kill()
		t.Fatalf("the up wrote no second journal segment:\n%s", out)
	}
	_ = a.Wait()
	srv.Intercept(nil)
	left := func() int {
		list, err := obj.List(context.Background(), ".runner/stacks/dev/")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range list {
			if strings.Contains(o.Key, "/journal/") {
				n++
			}
		}
		return n
	}
	if left() == 0 {
		t.Fatal("the killed up left no journal segment")
	}
	r := run(t, dir, "", env, "--non-interactive", "up", "--yes")
	if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "took over the lock") {
		t.Fatalf("the up after the kill exited %d, or took no lock over:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := left(); n != 0 {
		t.Errorf("%d journal segments left after the up that converged", n)
	}
	for p, row := range summary(t, run(t, dir, "", env, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Errorf("after the up that converged, preview plans changes in %s", p)
		}
	}
	if hist := run(t, dir, "", env, "stack", "history").Stdout; !strings.Contains(hist, "interrupted") {
		t.Errorf("the killed run is not recorded as interrupted:\n%s", hist)
	}
}

// TestS3KilledWhileCommitting kills an up (SIGKILL) at two moments of a
// project's commit, the request there never stored:
//   - after it sealed its journal (the commit segment naming the new
//     checkpoint), before that checkpoint was stored: the old checkpoint
//     and a sealed journal never applied are left, which the next preview
//     folds in (it plans nothing of what the killed run did). Before the
//     fix a sealed journal was taken for applied whatever checkpoint was
//     stored, and its steps were lost (done again, or created twice);
//   - after the checkpoint was stored, before the journal's segments were
//     removed: they are applied, and the next up removes them (before, they
//     were left for ever).
//
// Either way the next up converges and leaves no journal segment.
func TestS3KilledWhileCommitting(t *testing.T) {
	for _, moment := range []string{"checkpoint", "retire"} {
		t.Run(moment, func(t *testing.T) { killWhileCommitting(t, moment) })
	}
}

// killWhileCommitting kills an up at moment of its first project commit
// with steps: "checkpoint" holds the checkpoint's PUT, "retire" the
// removal of the journal's segments.
func killWhileCommitting(t *testing.T, moment string) {
	srv, dir, env, obj := s3Deployed(t)
	if r := run(t, dir, "", env, "--non-interactive", "-s", "dev", "config", "set", "app:port", freePort(t)); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	var mu sync.Mutex
	sealed, stored := map[string]bool{}, ""
	held, killed := make(chan string, 1), make(chan struct{})
	hold := func(project string) {
		held <- project
		mu.Unlock()
		<-killed
		mu.Lock()
		panic(http.ErrAbortHandler) // never stored
	}
	srv.Intercept(func(r *http.Request) {
		path := r.URL.Path
		mu.Lock()
		defer mu.Unlock()
		switch _, rest, ok := strings.Cut(path, "/.runner/stacks/dev/"); {
		case r.Method == http.MethodPut && ok && strings.HasSuffix(path, "/99999999.jsonl"):
			project, _, _ := strings.Cut(rest, "/")
			sealed[project] = true
			return
		case r.Method == http.MethodPost && r.URL.Query().Has("delete") && stored != "" && len(held) == 0:
			hold(stored)
		}
		if _, rest, ok := strings.Cut(path, "/.pulumi/stacks/"); ok && r.Method == http.MethodPut && strings.HasSuffix(rest, "/dev.json") {
			if project := strings.TrimSuffix(rest, "/dev.json"); sealed[project] && len(held) == 0 {
				if moment == "checkpoint" {
					hold(project)
				}
				stored = project
			}
		}
	})
	defer srv.Intercept(nil)
	a, out := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	var project string
	select {
	case project = <-held:
		_ = syscall.Kill(a.Process.Pid, syscall.SIGKILL)
	case <-time.After(90 * time.Second):
		_ = a.Process.Kill()
		t.Fatalf("the up never reached the %s of a commit:\n%s", moment, out)
	}
	_ = a.Wait()
	close(killed)
	srv.Intercept(nil)
	rows := summary(t, run(t, dir, "", env, "--json", "preview").Stdout)
	if changes(rows[project]) != 0 {
		t.Errorf("after a kill at the %s of %s, preview plans its changes again (its journal was dropped): %v", moment, project, rows[project])
	}
	r := run(t, dir, "", env, "--non-interactive", "up", "--yes")
	if r.Code != 0 {
		t.Fatalf("the up after the kill exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for p, row := range summary(t, run(t, dir, "", env, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Errorf("after the up that converged, preview plans changes in %s", p)
		}
	}
	list, err := obj.List(context.Background(), ".runner/stacks/dev/")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list {
		if strings.Contains(o.Key, "/journal/") {
			t.Errorf("the up that converged left the journal segment %s", o.Key)
		}
	}
}
