package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/backend/s3"
	"github.com/runnerhq/runner/internal/testserver"
)

// s3Workspace is a deployable workspace whose state lives in a fresh
// gofakes3 bucket: runs given env reach it through RUNNER_BACKEND_URL.
func s3Workspace(t *testing.T, srv *testserver.S3Server) (dir string, env []string) {
	t.Helper()
	env = append(append([]string{}, srv.Env...), "RUNNER_BACKEND_URL="+srv.URL)
	dir = workspace(t)
	if r := run(t, dir, adminPassword, env, "-s", "dev", "config", "set", "--secret", "app:adminPassword"); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	t.Cleanup(func() { run(t, dir, "", env, "--non-interactive", "destroy", "--yes") })
	return dir, env
}

// s3Deployed starts gofakes3, makes a deployable workspace whose state
// lives in it (s3Workspace; extra is added to env) and runs the first up;
// obj reads and writes the bucket directly.
func s3Deployed(t *testing.T, extra ...string) (srv *testserver.S3Server, dir string, env []string, obj bucket.Objects) {
	t.Helper()
	return s3DeployedOn(t, testserver.GoFakeS3(t), extra...)
}

// s3DeployedOn is s3Deployed on the S3 server srv.
func s3DeployedOn(t *testing.T, srv *testserver.S3Server, extra ...string) (_ *testserver.S3Server, dir string, env []string, obj bucket.Objects) {
	t.Helper()
	dir, env = s3Workspace(t, srv)
	env = append(env, extra...)
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Fatalf("first up exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	srv.SetEnv(t)
	obj, err := s3.OpenObjects(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv, dir, env, obj
}

// TestS3BackendThroughTheCLI deploys a stack into an S3 bucket (gofakes3 on
// loopback) with --backend and RUNNER_BACKEND_URL, reads it back with the
// stack commands, and checks that the bucket holds Pulumi's DIY layout,
// that the workspace holds no state, and that neither the access secret
// nor the stack's secret appears in any output or object.
func TestS3BackendThroughTheCLI(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	dir, env := s3Workspace(t, srv)
	var outputs []string
	check := func(r Result, args ...string) Result {
		t.Helper()
		if r.Code != 0 {
			t.Fatalf("runner %v exited %d:\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		outputs = append(outputs, r.Stdout+r.Stderr)
		return r
	}
	up := []string{"--backend", srv.URL, "--non-interactive", "up", "--yes"}
	check(run(t, dir, "", srv.Env, up...), up...)
	ls := check(run(t, dir, "", env, "stack", "ls", "--json"), "stack ls")
	if !strings.Contains(ls.Stdout, `"dev"`) || !strings.Contains(ls.Stdout, "network") {
		t.Fatalf("stack ls does not list dev and its projects:\n%s", ls.Stdout)
	}
	for _, args := range [][]string{
		{"-s", "dev", "stack", "output", "--project", "app", "--show-secrets"},
		{"-s", "dev", "stack", "export", "--project", "network"},
		{"-s", "dev", "stack", "history"},
		{"--non-interactive", "preview"},
		{"--json", "--non-interactive", "preview"},
	} {
		check(run(t, dir, "", env, args...), args...)
	}
	if _, err := os.Stat(filepath.Join(dir, ".runner", ".pulumi")); err == nil {
		t.Errorf("the workspace holds state in .runner/stacks although the backend is s3")
	}
	srv.SetEnv(t)
	obj, err := s3.OpenObjects(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	checkDIYLayout(t, obj, "network", "dev")
	for _, o := range outputs {
		if strings.Contains(o, srv.SecretKey) {
			t.Fatalf("the secret access key appears in runner's output:\n%s", o)
		}
	}
	list, err := obj.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range list {
		o, err := obj.Get(context.Background(), l.Key)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(o.Data), adminPassword) || strings.Contains(string(o.Data), srv.SecretKey) {
			t.Fatalf("the object %s holds a secret in plain text", l.Key)
		}
	}
	check(run(t, dir, "", env, "--non-interactive", "destroy", "--yes"), "destroy")
}

// checkDIYLayout checks the keys and formats Pulumi's DIY backend reads:
// meta.yaml version 1, a version 3 checkpoint naming
// organization/<project>/<stack>, and update records in the history.
func checkDIYLayout(t *testing.T, obj bucket.Objects, project, stack string) {
	t.Helper()
	ctx := context.Background()
	meta, err := obj.Get(ctx, ".pulumi/meta.yaml")
	if err != nil || strings.TrimSpace(string(meta.Data)) != "version: 1" {
		t.Fatalf(".pulumi/meta.yaml = %v, %v; want version: 1", meta, err)
	}
	cp, err := obj.Get(ctx, ".pulumi/stacks/"+project+"/"+stack+".json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Version    int `json:"version"`
		Checkpoint struct {
			Stack  string `json:"stack"`
			Latest struct {
				Manifest  map[string]any   `json:"manifest"`
				Resources []map[string]any `json:"resources"`
			} `json:"latest"`
		} `json:"checkpoint"`
	}
	if err := json.Unmarshal(cp.Data, &c); err != nil {
		t.Fatal(err)
	}
	if c.Version != 3 || c.Checkpoint.Stack != "organization/"+project+"/"+stack || len(c.Checkpoint.Latest.Resources) == 0 || c.Checkpoint.Latest.Manifest == nil {
		t.Fatalf("the checkpoint is not Pulumi's version 3 checkpoint of %s/%s:\n%.400s", project, stack, cp.Data)
	}
	hist, err := obj.List(ctx, ".pulumi/history/"+project+"/"+stack+"/")
	if err != nil || len(hist) == 0 || !strings.HasSuffix(hist[0].Key, ".history.json") {
		t.Fatalf("history of %s/%s = %v, %v", project, stack, hist, err)
	}
}

// TestS3BackendErrorsExit3 checks that a missing bucket, an unreachable
// endpoint and an unknown URL parameter exit 3 naming the URL and what to
// do, before anything is written.
func TestS3BackendErrorsExit3(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	dir := workspace(t)
	for _, c := range []struct{ url, want string }{
		{strings.Replace(srv.URL, srv.Bucket, "no-such-bucket", 1), "the bucket no-such-bucket does not exist"},
		{"s3://b/p?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true", "cannot be reached"},
		{srv.URL + "&colour=blue", "unknown parameters colour"},
	} {
		r := run(t, dir, "", srv.Env, "--backend", c.url, "-s", "dev", "stack", "ls")
		if r.Code != 3 || !strings.Contains(r.Stderr, c.want) || !strings.Contains(r.Stderr, "nothing was changed") {
			t.Errorf("runner --backend %s stack ls exited %d, want 3 saying %q:\n%s", c.url, r.Code, c.want, r.Stderr)
		}
		if strings.Contains(r.Stderr, srv.SecretKey) {
			t.Errorf("the error shows the secret key:\n%s", r.Stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused backend wrote into the workspace: %v", entries)
	}
}

// TestS3BadCredentialsExit3: versitygw checks SigV4, so a wrong secret key
// is refused; runner exits 3 naming the URL and what to check, and shows
// neither secret.
func TestS3BadCredentialsExit3(t *testing.T) {
	srv := testserver.Versity(t)
	dir := workspace(t)
	wrong := "wrong-secret-4f1a9c"
	env := append(append([]string{}, srv.Env...), "AWS_SECRET_ACCESS_KEY="+wrong)
	r := run(t, dir, "", env, "--backend", srv.URL, "-s", "dev", "stack", "ls")
	if r.Code != 3 || !strings.Contains(r.Stderr, "refused the credentials") || !strings.Contains(r.Stderr, "s3://"+srv.Bucket) {
		t.Fatalf("wrong credentials: exit %d, want 3 naming the URL and the credentials:\n%s", r.Code, r.Stderr)
	}
	for _, secret := range []string{wrong, srv.SecretKey} {
		if strings.Contains(r.Stdout+r.Stderr, secret) {
			t.Fatalf("the output shows a secret key:\n%s%s", r.Stdout, r.Stderr)
		}
	}
	if r := run(t, dir, "", srv.Env, "--backend", srv.URL, "-s", "dev", "stack", "ls"); r.Code != 0 {
		t.Fatalf("the right credentials: exit %d\n%s", r.Code, r.Stderr)
	}
}
