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

// BenchmarkS3NoopRequests counts the requests of a no-op up of one project
// of 100 resources on the s3 backend (lock, load, commit, unlock),
// reported as requests/project: on gofakes3, which ignores If-Match on
// DELETE (a lock is read back before it is released), and on versitygw,
// which honours it, when installed.
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
	opts := benchOptions(s)
	prog := wideProgram(100)
	if _, err := engine.Up(context.Background(), opts, prog); err != nil {
		b.Fatal(err)
	}
	before := c.Total()
	g, p, d, l := c.Gets.Load(), c.Puts.Load(), c.Deletes.Load(), c.Lists.Load()
	runs := 0
	for b.Loop() {
		res, err := engine.Up(context.Background(), opts, prog)
		if err != nil {
			b.Fatal(err)
		}
		if res.Changes[engine.OpSame] != 101 {
			b.Fatalf("changes %v", res.Changes)
		}
		runs++
	}
	b.ReportMetric(float64(c.Total()-before)/float64(runs), "requests/project")
	b.ReportMetric(float64(c.Gets.Load()-g)/float64(runs), "gets/project")
	b.ReportMetric(float64(c.Puts.Load()-p)/float64(runs), "puts/project")
	b.ReportMetric(float64(c.Deletes.Load()-d)/float64(runs), "deletes/project")
	b.ReportMetric(float64(c.Lists.Load()-l)/float64(runs), "lists/project")
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
