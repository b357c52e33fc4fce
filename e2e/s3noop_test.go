package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestS3NoopUpWritesNoCheckpoint: a second up that changes nothing on an
// s3:// stack rewrites no checkpoint (before, each was written again with
// its .bak: secrets encrypted with new nonces, resources in the order
// their steps finished) and reads no project's lock to fence a commit
// (only to release it, as gofakes3 ignores If-Match on DELETE); it writes
// no project's history record (nothing changed), one record of the run
// for the stack, and lists no project's journal on its own (the stack's
// are listed once, when its lock is taken).
func TestS3NoopUpWritesNoCheckpoint(t *testing.T) {
	srv, dir, env, _ := s3Deployed(t)
	var mu sync.Mutex
	var requests []string
	srv.Intercept(func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		req := r.Method + " " + r.URL.Path
		if prefix := r.URL.Query().Get("prefix"); prefix != "" {
			req = "LIST " + r.URL.Path + prefix
		}
		requests = append(requests, req)
	})
	defer srv.Intercept(nil)
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("no-op up exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	lockReads := map[string]int{}
	journalLists, projectRecords, stackRecords := 0, 0, 0
	for _, req := range requests {
		t.Log(req)
		switch {
		case strings.HasPrefix(req, "LIST ") && strings.Contains(req, "/journal/"):
			journalLists++
		case strings.HasPrefix(req, "PUT ") && strings.Contains(req, "/.pulumi/history/"):
			projectRecords++
		case strings.HasPrefix(req, "PUT ") && strings.Contains(req, "/.runner/history/"):
			stackRecords++
		}
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
	if journalLists > 0 {
		t.Errorf("the no-op up listed a project's journal %d times; the stack's journals are listed once, with its lock", journalLists)
	}
	if projectRecords != 0 || stackRecords != 1 {
		t.Errorf("the no-op up wrote %d project history records (want none: nothing changed) and %d of the stack (want 1)", projectRecords, stackRecords)
	}
	t.Logf("%d requests for the no-op up of 5 projects", len(requests))
}
