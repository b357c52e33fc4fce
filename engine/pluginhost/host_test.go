package pluginhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv("PLUGINHOST_FAKE"); mode != "" {
		os.Exit(runFake(mode))
	}
	if os.Getenv("PLUGINHOST_HELPER") != "" {
		os.Exit(runHelper())
	}
	os.Exit(m.Run())
}

const fakeURN = resource.URN("urn:pulumi:dev::web::pulumi:providers:fake::default")

// env is what a test needs around a pool of fake plugins.
type env struct {
	pool      *Pool
	bin       string // the plugin executable (a link to the test binary)
	dir       string // where the fakes record
	workspace string
	mu        sync.Mutex
	logs      []LogEntry
}

// fakeBinary links the test binary as dir/pulumi-resource-fake.
func fakeBinary(t testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "pulumi-resource-fake")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

func newEnv(t *testing.T, mode string, extra ...string) *env {
	t.Helper()
	e := &env{bin: fakeBinary(t), dir: t.TempDir(), workspace: t.TempDir()}
	e.pool = NewPool(PoolOptions{
		Workspace: e.workspace,
		Environ:   append(append(os.Environ(), "PLUGINHOST_FAKE="+mode, "FAKE_DIR="+e.dir), extra...),
		Locate: func(pkg, version string) (string, error) {
			if pkg != "fake" {
				return "", fmt.Errorf("no plugin for %s", pkg)
			}
			return e.bin, nil
		},
		Log: func(l LogEntry) { e.mu.Lock(); e.logs = append(e.logs, l); e.mu.Unlock() },
	})
	t.Cleanup(func() { e.pool.Close(context.Background()) })
	return e
}

// calls returns the records of one method, in the order written.
func (e *env) calls(method string) []record {
	var out []record
	for _, r := range records(e.dir) {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func (e *env) configure(t *testing.T, inputs resource.PropertyMap) resource.Plugin {
	t.Helper()
	p, err := e.pool.Plugin("fake", "1.0.0").Configure(context.Background(),
		resource.ConfigureRequest{URN: fakeURN, ID: "prov-id", Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStartAndHandshake(t *testing.T) {
	tests := []struct {
		mode      string
		handshake bool
	}{
		{"modern", true},
		{"legacy", false},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			e := newEnv(t, tt.mode)
			p := e.configure(t, resource.PropertyMap{"version": "1.0.0", "region": "eu", "token": resource.Secret{Element: "s3"}})
			urn := resource.URN("urn:pulumi:dev::web::fake:index:Thing::a")
			got, err := p.Check(context.Background(), resource.CheckRequest{URN: urn, News: resource.PropertyMap{"x": 1.0}, RandomSeed: make([]byte, 32)})
			if err != nil || got["x"] != 1.0 {
				t.Fatalf("Check = %v, %v", got, err)
			}
			start := e.calls("start")
			if len(start) != 1 {
				t.Fatalf("%d processes started, want 1", len(start))
			}
			d := start[0].Data
			args, _ := d["args"].([]any)
			if len(args) != 1 || !strings.HasPrefix(args[0].(string), "127.0.0.1:") {
				t.Errorf("argv = %v, want the engine address only", args)
			}
			if d["cwd"] != e.workspace || d["project"] != "web" || d["config"] != `{"region":"eu","token":"s3"}` {
				t.Errorf("start = %v", d)
			}
			hs := e.calls("Handshake")
			if (len(hs) == 1) != tt.handshake {
				t.Fatalf("handshakes = %v", hs)
			}
			if tt.handshake && (hs[0].Data["root"] != filepath.Dir(e.bin) || hs[0].Data["urn"] != true || hs[0].Data["views"] != false || hs[0].Data["engine"] != args[0]) {
				t.Errorf("handshake = %v", hs[0].Data)
			}
			cfg := e.calls("Configure")[0].Data
			vars := cfg["variables"].(map[string]any)
			if vars["fake:config:region"] != "eu" || vars["fake:config:token"] != "s3" || vars["fake:config:version"] != nil {
				t.Errorf("variables = %v", vars)
			}
			if cfg["id"] != "prov-id" || cfg["urn"] != string(fakeURN) || cfg["type"] != "pulumi:providers:fake" || cfg["secrets"] != true {
				t.Errorf("configure = %v", cfg)
			}
			if c := e.calls("Check")[0].Data; c["olds"] != true || c["seed"] != 32.0 {
				t.Errorf("check = %v: olds must always be sent, with the seed", c)
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	defer func(d time.Duration) { portTimeout = d }(portTimeout)
	portTimeout = 2 * time.Second
	tests := []struct {
		mode string
		want []string
	}{
		{"garbage", []string{"pulumi-resource-fake", `printed "hello, I am not a port" where its port number was expected`}},
		{"noport", []string{"pulumi-resource-fake", "printed no port", "exited with status 3", "fatal: giving up"}},
		{"silent", []string{"pulumi-resource-fake", "printed no port within 2s"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			e := newEnv(t, tt.mode)
			_, err := e.pool.Plugin("fake", "").Configure(context.Background(), resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{}})
			if err == nil {
				t.Fatal("Configure succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLocateError(t *testing.T) {
	e := newEnv(t, "modern")
	_, err := e.pool.Plugin("nothere", "").CheckConfig(context.Background(), resource.CheckRequest{URN: fakeURN})
	if err == nil || !strings.Contains(err.Error(), "no plugin for nothere") {
		t.Fatalf("err = %v", err)
	}
}

func TestLogRouting(t *testing.T) {
	e := newEnv(t, "modern")
	p := e.configure(t, resource.PropertyMap{})
	urn := resource.URN("urn:pulumi:dev::api::fake:index:Thing::a")
	if _, err := p.Check(context.Background(), resource.CheckRequest{URN: urn, News: resource.PropertyMap{"log": "careful"}}); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.logs) != 1 || e.logs[0] != (LogEntry{Severity: "warning", Message: "careful", URN: urn}) {
		t.Fatalf("logs = %+v", e.logs)
	}
}

func TestOlderVersionWarns(t *testing.T) {
	e := newEnv(t, "modern") // the fake is version 1.0.0
	if _, err := e.pool.Plugin("fake", "2.0.0").Configure(context.Background(), resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{}}); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.logs) != 1 || e.logs[0].Severity != "warning" || !strings.Contains(e.logs[0].Message, "is version 1.0.0, older than the 2.0.0 asked for") {
		t.Errorf("logs = %+v", e.logs)
	}
}

func TestStartFailureIsRemembered(t *testing.T) {
	defer func(d time.Duration) { portTimeout = d }(portTimeout)
	portTimeout = 500 * time.Millisecond
	e := newEnv(t, "silent")
	h := e.pool.Plugin("fake", "1.0.0")
	_, first := h.Configure(context.Background(), resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{"n": 1.0}})
	start := time.Now()
	_, second := h.Configure(context.Background(), resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{"n": 2.0}})
	if took := time.Since(start); first == nil || second == nil || second.Error() != first.Error() || took > 200*time.Millisecond {
		t.Errorf("a second start of a plugin that failed to start: %v after %s; want %v at once", second, took, first)
	}
}

func TestLocateDoesNotBlockThePool(t *testing.T) {
	e := newEnv(t, "modern")
	release, entered := make(chan struct{}), make(chan struct{})
	defer close(release)
	locate := e.pool.opts.Locate
	e.pool.opts.Locate = func(pkg, version string) (string, error) {
		if pkg == "slow" {
			close(entered)
			<-release
		}
		return locate(pkg, version)
	}
	go e.pool.Plugin("slow", "").CheckConfig(context.Background(), resource.CheckRequest{URN: fakeURN})
	<-entered
	done := make(chan error, 1)
	go func() {
		_, err := e.pool.Plugin("fake", "1.0.0").Configure(context.Background(), resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{}})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a plugin could not start while another package's plugin was being located")
	}
}
