package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/runnerhq/runner/internal/testserver"
)

// TestS3NoopUpWritesNoCheckpoint: a second up that changes nothing on an
// s3:// stack rewrites no checkpoint (before, each was written again with
// its .bak: secrets encrypted with new nonces, resources in the order
// their steps finished) and reads no project's lock to fence a commit
// (only to release it, as gofakes3 ignores If-Match on DELETE).
func TestS3NoopUpWritesNoCheckpoint(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	dir, env := s3Workspace(t, srv)
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("first up exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var mu sync.Mutex
	var requests []string
	srv.Intercept(func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests = append(requests, r.Method+" "+r.URL.Path)
	})
	defer srv.Intercept(nil)
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("no-op up exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	lockReads := map[string]int{}
	for _, req := range requests {
		if strings.HasPrefix(req, "PUT ") && strings.Contains(req, "/.pulumi/stacks/") {
			t.Errorf("the no-op up wrote a checkpoint: %s", req)
		}
		if strings.HasPrefix(req, "GET ") && strings.HasSuffix(req, "/runner.json") {
			lockReads[req]++
		}
	}
	for req, n := range lockReads {
		if n > 1 {
			t.Errorf("the no-op up read a project's lock %d times (%s); once (before its release) is enough", n, req)
		}
	}
	t.Logf("%d requests for the no-op up of 5 projects", len(requests))
}
