package e2e

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testserver"
)

// TestS3PreviewBesideARunningUp: a preview while an up of another machine
// (machine-b: another hostname and pid namespace) runs on the stack (here
// held in the middle of a project's journal, as a slow step holds it)
// reads that project's journal, whose operations are in progress, not
// interrupted. Before, the preview warned that "an earlier operation was
// interrupted"; now it says another run holds the project's lock, naming
// the holder, and that what it is doing is read back as it is now.
func TestS3PreviewBesideARunningUp(t *testing.T) {
	prefix := machineB(t)
	srv, dir, env, _ := s3Deployed(t)
	if r := run(t, dir, "", env, "--non-interactive", "-s", "dev", "config", "set", "app:port", freePort(t)); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	var segments atomic.Int32
	held, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	defer let()
	srv.Intercept(func(r *http.Request) {
		// The journal's second segment waits: the first, stored, holds a
		// step that began and has not ended.
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/journal/") && segments.Add(1) == 2 {
			close(held)
			<-release
		}
	})
	defer srv.Intercept(nil)
	got := previewBesideHeldUp(t, dir, env, prefix, held, let, "wrote no second journal segment")
	if strings.Contains(got, "interrupted") {
		t.Errorf("the preview beside a running up calls its operations interrupted:\n%s", got)
	}
	for _, want := range []string{"another run is in progress", "runner up (pid", "on host machine-b"} {
		if !strings.Contains(got, want) {
			t.Errorf("the preview beside a running up does not say %q:\n%s", want, got)
		}
	}
}

// TestS3PreviewBesideARunningFirstUp: a preview beside the first up of a
// stack, held while app's service is being created, reads that create in
// progress. Before, after saying the run is in progress, it said "the
// interrupted create ... did not happen; it will be created again", and
// of a create its plugin cannot look up without an ID (as every Pulumi
// plugin's) it told the user to delete the resource by hand and run
// `runner stack repair` while the up was making it.
func TestS3PreviewBesideARunningFirstUp(t *testing.T) {
	prefix := machineB(t)
	srv := testserver.GoFakeS3(t)
	dir, env := s3Workspace(t, srv)
	var begun atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	var heldOnce, releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	defer let()
	srv.Intercept(func(r *http.Request) {
		// The segment after the one that begins the create of app's
		// service waits.
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/app/journal/") {
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if begun.Load() {
			heldOnce.Do(func() { close(held); <-release })
		}
		if bytes.Contains(body, []byte("Process::service")) {
			begun.Store(true)
		}
	})
	defer srv.Intercept(nil)
	got := previewBesideHeldUp(t, dir, env, prefix, held, let, "began no create of app's service")
	for _, bad := range []string{"interrupted", "stack repair", "by hand"} {
		if strings.Contains(got, bad) {
			t.Errorf("the preview beside a running first up says %q:\n%s", bad, got)
		}
	}
	if !strings.Contains(got, "another run is in progress") || !strings.Contains(got, "Process::service") {
		t.Errorf("the preview beside a running first up does not say that app's service is being created:\n%s", got)
	}
}

// previewBesideHeldUp starts an up on machine-b (prefix), waits until the
// server holds it (held; "the up <missing>" when it never does), runs a
// preview beside it, lets the up go on (let) and returns the preview's
// output once the up succeeded.
func previewBesideHeldUp(t *testing.T, dir string, env, prefix []string, held <-chan struct{}, let func(), missing string) string {
	t.Helper()
	a, out := startRunner(t, dir, env, prefix, "--non-interactive", "up", "--yes")
	select {
	case <-held:
	case <-time.After(90 * time.Second):
		_ = a.Process.Kill()
		t.Fatalf("the up %s:\n%s", missing, out)
	}
	r := run(t, dir, "", env, "--non-interactive", "preview")
	let()
	if err := a.Wait(); err != nil {
		t.Fatalf("the up beside the preview failed (%v):\n%s", err, out)
	}
	got := r.Stdout + r.Stderr
	t.Log(got)
	return got
}
