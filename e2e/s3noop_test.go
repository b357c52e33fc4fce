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
// (only to release it, as gofakes3 ignores If-Match on DELETE); it writes
// no project's history record (nothing changed), one record of the run
// for the stack, and lists no project's journal on its own (the stack's
// are listed once, when its lock is taken). It reads each project's
// checkpoint once, under the project's lock: the passphrase's check before
// the locks takes what each checkpoint records of its secrets from the
// stack's index, which names each checkpoint by its ETag (before, it read
// every checkpoint a second time: 5 requests a project on versitygw). On
// gofakes3 and on versitygw (through a proxy that sees its requests); the
// requests are logged, with their count per project and for the stack.
func TestS3NoopUpWritesNoCheckpoint(t *testing.T) {
	t.Run("gofakes3", func(t *testing.T) { noopUpRequests(t, testserver.GoFakeS3(t)) })
	t.Run("versitygw", func(t *testing.T) { noopUpRequests(t, testserver.Versity(t).Fronted(t)) })
}

func noopUpRequests(t *testing.T, srv *testserver.S3Server) {
	srv, dir, env, _ := s3DeployedOn(t, srv)
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
	lockReads, checkpointReads := map[string]int{}, map[string]int{}
	journalLists, projectRecords, stackRecords, perProject := 0, 0, 0, 0
	for _, req := range requests {
		t.Log(req)
		if strings.Contains(req, "/.pulumi/locks/organization/") || strings.Contains(req, "/.pulumi/stacks/") && strings.HasSuffix(req, "/dev.json") {
			perProject++
		}
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
		if strings.HasPrefix(req, "GET ") && strings.Contains(req, "/.pulumi/stacks/") {
			checkpointReads[req]++
		}
	}
	if len(checkpointReads) != 5 {
		t.Errorf("the no-op up read %d checkpoints, want the 5 projects' (under their locks)", len(checkpointReads))
	}
	for req, n := range checkpointReads {
		if n > 1 {
			t.Errorf("the no-op up read a checkpoint %d times (%s); once, under the project's lock, is enough", n, req)
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
	t.Logf("%d requests for the no-op up of 5 projects: %.1f per project (its lock, Pulumi's lock folder, its checkpoint), %d for the stack and the command",
		len(requests), float64(perProject)/5, len(requests)-perProject)
}
