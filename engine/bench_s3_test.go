package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/backend/s3"
	"github.com/runnerhq/runner/internal/testserver"
)

// s3Backends adds the s3 backend to backends: on gofakes3 in process, and
// on versitygw (a child process) when it is installed; both on loopback.
func s3Backends(b *testing.B, backends map[string]func() backend.Backend) {
	backends["s3-gofakes3"] = func() backend.Backend {
		srv := testserver.GoFakeS3(b)
		return openS3(b, srv, srv.URL)
	}
	if !versityInstalled() {
		b.Logf("no versitygw figures: it is not installed (.ci/run installs it)")
		return
	}
	var srv *testserver.S3Server
	n := 0
	backends["s3-versitygw"] = func() backend.Backend {
		if srv == nil {
			srv = testserver.Versity(b)
		}
		n++
		return openS3(b, srv, srv.URLWithPrefix(fmt.Sprintf("bench%d", n)))
	}
}

func versityInstalled() bool {
	_, ok := testserver.VersityPath()
	return ok
}

func openS3(b *testing.B, srv *testserver.S3Server, url string) *bucket.Store {
	srv.SetEnv(b)
	obj, err := s3.OpenObjects(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	return bucket.New(obj)
}

// countedS3 is a store on gofakes3 whose requests are counted.
func countedS3(b *testing.B) (*bucket.Store, *bucket.Counter) {
	return counted(b, testserver.GoFakeS3(b))
}

// counted is a store on srv whose requests are counted.
func counted(b *testing.B, srv *testserver.S3Server) (*bucket.Store, *bucket.Counter) {
	srv.SetEnv(b)
	obj, err := s3.OpenObjects(context.Background(), srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	c := &bucket.Counter{Objects: obj}
	return bucket.New(c), c
}

// BenchmarkS3NoopRequests counts the requests of a no-op up of a stack of
// three projects of 100 resources each on the s3 backend, as runner runs
// it: the passphrase's check reads what the stack's states record of their
// secrets (StackSecrets, before any lock), the stack lock taken (and the
// stack's journals listed), each project locked, loaded, committed
// (nothing written) and unlocked, the run recorded once in the stack's
// history, the stack lock released. Reported as requests/project (what
// each project costs), requests/stack (what the run costs once, the check
// included) and check-requests/stack (the check alone: a checkpoint it
// reads, which the stack's index did not describe, is counted there); on gofakes3, which ignores
// If-Match on DELETE (a lock is read back before it is released), and on
// versitygw, which honours it, when installed. The requests of the first
// run are logged.
func BenchmarkS3NoopRequests(b *testing.B) {
	b.Run("gofakes3", func(b *testing.B) { noopRequests(b, testserver.GoFakeS3(b)) })
	if !versityInstalled() {
		b.Logf("no versitygw figures: it is not installed (.ci/run installs it)")
		return
	}
	b.Run("versitygw", func(b *testing.B) { noopRequests(b, testserver.Versity(b)) })
}

func noopRequests(b *testing.B, srv *testserver.S3Server) {
	s, c := counted(b, srv)
	projects := []string{"network", "app", "web"}
	prog := wideProgram(100)
	stackRun := func(log bool) (perStack, perProject, check int64) {
		ctx := context.Background()
		before := c.Total()
		if _, err := s.StackSecrets(ctx, stack); err != nil {
			b.Fatal(err)
		}
		check = c.Total() - before
		if log {
			logRequests(b, "the passphrase's check", c.Requests())
		}
		before = c.Total()
		lock, err := s.LockStack(ctx, stack, backend.CurrentLockInfo("runner up"))
		if err != nil {
			b.Fatal(err)
		}
		perStack = check + c.Total() - before
		if log {
			logRequests(b, "the stack's lock", c.Requests())
		}
		for _, p := range projects {
			opts := benchOptions(s)
			opts.Project, opts.Held = p, []backend.Lock{lock}
			before := c.Total()
			res, err := engine.Up(ctx, opts, prog)
			if err != nil {
				b.Fatal(err)
			}
			if log && res.Changes[engine.OpSame] != 101 {
				b.Fatalf("changes %v", res.Changes)
			}
			perProject += c.Total() - before
			if log {
				logRequests(b, "project "+p, c.Requests())
			}
		}
		before = c.Total()
		if err := s.RecordStackRun(ctx, stack, backend.HistoryRecord{Kind: "update", Result: "succeeded"}); err != nil {
			b.Fatal(err)
		}
		if err := lock.Unlock(); err != nil {
			b.Fatal(err)
		}
		perStack += c.Total() - before
		if log {
			logRequests(b, "the run's record and the stack's unlock", c.Requests())
		}
		return perStack, perProject, check
	}
	stackRun(false) // the first up creates
	c.Log = true
	c.Requests()
	var stacks, projectRequests, stackRequests, checkRequests int64
	for b.Loop() {
		st, pr, ch := stackRun(stacks == 0)
		stackRequests, projectRequests, checkRequests = stackRequests+st, projectRequests+pr, checkRequests+ch
		stacks++
		c.Log = false
	}
	b.ReportMetric(float64(projectRequests)/float64(stacks*int64(len(projects))), "requests/project")
	b.ReportMetric(float64(stackRequests)/float64(stacks), "requests/stack")
	b.ReportMetric(float64(checkRequests)/float64(stacks), "check-requests/stack")
}

func logRequests(b *testing.B, what string, requests []string) {
	for _, r := range requests {
		b.Logf("%s: %s", what, r)
	}
}

// BenchmarkS3WritesPerStep creates 10,000 resources with 64 steps at once
// on the s3 backend and reports the object writes (PUTs) per step.
func BenchmarkS3WritesPerStep(b *testing.B) {
	prog := wideProgram(10_000)
	var puts, steps int64
	for b.Loop() {
		s, c := countedS3(b)
		opts := benchOptions(s)
		opts.Parallel = 64
		res, err := engine.Up(context.Background(), opts, prog)
		if err != nil {
			b.Fatal(err)
		}
		puts += c.Puts.Load()
		steps += int64(res.Changes[engine.OpCreate])
	}
	b.ReportMetric(float64(puts)/float64(steps), "puts/step")
}
