// Package testserver starts the servers that tests of remote backends use:
// an S3 store in process (gofakes3) and versitygw, a real S3 gateway, as a
// child process. A server that cannot start skips the test saying why,
// and fails it under CI (CI=true), where .ci/run installs it.
package testserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/runnerhq/runner/internal/testenv"
)

// S3Server is an S3 store for one test: URL is a backend URL of a fresh
// bucket (with a prefix), Env the environment a runner process needs to
// reach it (credentials; no instance metadata).
type S3Server struct {
	Endpoint string
	Bucket   string
	URL      string
	Env      []string
	// AccessKey and SecretKey are the credentials Env holds.
	AccessKey, SecretKey string

	intercept *atomic.Pointer[func(*http.Request)]
}

// Intercept makes the server call fn with each request before serving it
// (nil: none), so that a test can hold or delay chosen requests; only
// GoFakeS3 servers and those Fronted returns call it (it is ignored on
// others).
func (s *S3Server) Intercept(fn func(*http.Request)) {
	if fn == nil {
		s.intercept.Store(nil)
		return
	}
	s.intercept.Store(&fn)
}

// URLWithPrefix is a backend URL of the server's bucket under prefix.
func (s *S3Server) URLWithPrefix(prefix string) string {
	return fmt.Sprintf("s3://%s/%s?endpoint=%s&region=us-east-1&use_path_style=true", s.Bucket, prefix, s.Endpoint)
}

// SetEnv sets the server's environment for this test's process.
func (s *S3Server) SetEnv(t testing.TB) {
	for _, kv := range s.Env {
		k, v, _ := cut(kv)
		t.Setenv(k, v)
	}
}

func cut(kv string) (string, string, bool) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

func newServer(endpoint, bucket, access, secret string) *S3Server {
	return &S3Server{Endpoint: endpoint, Bucket: bucket, AccessKey: access, SecretKey: secret, intercept: new(atomic.Pointer[func(*http.Request)]),
		URL: fmt.Sprintf("s3://%s/team/state?endpoint=%s&region=us-east-1&use_path_style=true", bucket, endpoint),
		Env: []string{"AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_REGION=us-east-1",
			"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}}
}

// GoFakeS3 starts gofakes3 (in memory) in this process on loopback, with
// one bucket. It checks no credentials; its conditional PUTs are atomic,
// and it ignores If-Match on DELETE.
func GoFakeS3(t testing.TB) *S3Server {
	t.Helper()
	faker := gofakes3.New(s3mem.New(), gofakes3.WithLogger(gofakes3.DiscardLog()))
	hook := new(atomic.Pointer[func(*http.Request)])
	serve := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fn := hook.Load(); fn != nil {
			(*fn)(r)
		}
		serve.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s := newServer(srv.URL, "runner-state", "AKIAFAKES3TEST", "fakes3-secret-"+fmt.Sprint(time.Now().UnixNano()))
	s.intercept = hook
	createBucket(t, s)
	return s
}

// Fronted returns s reached through a reverse proxy on loopback that calls
// the returned server's Intercept function with each request, for a server
// that does not run in this process (versitygw). The proxy keeps the Host
// header, so SigV4 signatures still match.
func (s *S3Server) Fronted(t testing.TB) *S3Server {
	t.Helper()
	target, err := url.Parse(s.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	f := *s
	hook := new(atomic.Pointer[func(*http.Request)])
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fn := hook.Load(); fn != nil {
			(*fn)(r)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.intercept, f.Endpoint = hook, srv.URL
	f.URL = strings.Replace(s.URL, s.Endpoint, srv.URL, 1)
	return &f
}

// createBucket creates s.Bucket.
func createBucket(t testing.TB, s *S3Server) {
	t.Helper()
	client := s3api.New(s3api.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, "")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.CreateBucket(ctx, &s3api.CreateBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
		t.Fatalf("creating the bucket %s at %s: %v", s.Bucket, s.Endpoint, err)
	}
}

// unavailable skips the test saying why, or fails it under CI.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	testenv.Unavailable(t, fmt.Sprintf(format, args...)+" (.ci/run installs it)")
}

// CacheDir is where .ci/run installs the test servers.
func CacheDir() string {
	if d := os.Getenv("RUNNER_CI_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "runner-ci")
}

// Versity starts versitygw v1.8.0 (installed by .ci/run in the CI cache's
// bin folder, or on PATH) on a free loopback port, serving a temporary
// folder, with one bucket. It checks SigV4 credentials and honours
// conditional writes and deletes.
func Versity(t testing.TB) *S3Server {
	t.Helper()
	bin, ok := VersityPath()
	if !ok {
		unavailable(t, "versitygw is not installed (neither %s nor on PATH): run .ci/run, or go install github.com/versity/versitygw/cmd/versitygw@v1.8.0", filepath.Join(CacheDir(), "bin", "versitygw"))
	}
	port := freePort(t)
	dir := t.TempDir()
	access, secret := "versityadmin", fmt.Sprintf("versity-secret-%d", time.Now().UnixNano())
	cmd := exec.Command(bin, "--port", fmt.Sprintf("127.0.0.1:%d", port), "posix", dir)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+access, "ROOT_SECRET_KEY="+secret)
	out, err := os.CreateTemp(t.TempDir(), "versitygw-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		unavailable(t, "starting versitygw: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(out.Name())
			unavailable(t, "versitygw did not listen on %s within 20s: %s", addr, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s := newServer("http://"+addr, "runner-state", access, secret)
	createBucket(t, s)
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Unavailable skips the test saying why, or fails it under CI.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	unavailable(t, format, args...)
}

// VersityPath finds the versitygw binary: in the CI cache's bin folder, or
// on PATH.
func VersityPath() (string, bool) {
	bin := filepath.Join(CacheDir(), "bin", "versitygw")
	if _, err := os.Stat(bin); err == nil {
		return bin, true
	}
	bin, err := exec.LookPath("versitygw")
	return bin, err == nil
}
