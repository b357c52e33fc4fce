package pluginhost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits up to 10 s for pid to be gone.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Errorf("process %d is still running", pid)
}

func TestHealthServed(t *testing.T) {
	e := newEnv(t, "modern")
	e.configure(t, resource.PropertyMap{})
	cc, err := grpc.NewClient(e.pool.eng.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	resp, err := healthpb.NewHealthClient(cc).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health = %v, %v", resp, err)
	}
	if _, err := pulumirpc.NewEngineClient(cc).RequirePulumiVersion(context.Background(),
		&pulumirpc.RequirePulumiVersionRequest{PulumiVersionRange: ">=3.0.0"}); err != nil {
		t.Errorf("RequirePulumiVersion = %v, want OK", err)
	}
}

func TestConfigureOnceUnderConcurrentCalls(t *testing.T) {
	e := newEnv(t, "modern")
	inputs := resource.PropertyMap{"version": "1.0.0", "region": "eu"}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two handles, as two projects of a run have.
			p, err := e.pool.Plugin("fake", "1.0.0").Configure(context.Background(),
				resource.ConfigureRequest{URN: fakeURN, ID: "id", Inputs: inputs.Copy(0)})
			if err != nil {
				errs <- err
				return
			}
			urn := resource.URN(fmt.Sprintf("urn:pulumi:dev::web::fake:index:Thing::r%d", i))
			if _, err := p.Check(context.Background(), resource.CheckRequest{URN: urn, News: resource.PropertyMap{"n": float64(i)}}); err != nil {
				errs <- err
			}
			if _, err := p.Create(context.Background(), resource.CreateRequest{URN: urn, Inputs: resource.PropertyMap{"n": float64(i)}}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(e.calls("start")); n != 1 {
		t.Errorf("%d processes, want 1", n)
	}
	if n := len(e.calls("Configure")); n != 1 {
		t.Errorf("%d Configures, want 1", n)
	}
	if n := len(e.calls("Create")); n != 16 {
		t.Errorf("%d Creates, want 16", n)
	}
}

func TestProcessPerConfiguration(t *testing.T) {
	e := newEnv(t, "modern")
	ctx := context.Background()
	h := e.pool.Plugin("fake", "1.0.0")
	// CheckConfig starts a spare that the first configuration claims.
	if _, err := h.CheckConfig(ctx, resource.CheckRequest{URN: fakeURN, News: resource.PropertyMap{"region": "eu"}}); err != nil {
		t.Fatal(err)
	}
	e.configure(t, resource.PropertyMap{"region": "eu"})
	e.configure(t, resource.PropertyMap{"region": "eu"})
	e.configure(t, resource.PropertyMap{"region": "us"})
	e.configure(t, resource.PropertyMap{"region": resource.Secret{Element: "us"}})
	if n := len(e.calls("start")); n != 3 {
		t.Errorf("%d processes, want 3 (eu, us, secret us)", n)
	}
	if n := len(e.calls("Configure")); n != 3 {
		t.Errorf("%d Configures, want 3", n)
	}
}

func TestSpareClaimedOnlyByItsLaunchConfig(t *testing.T) {
	e := newEnv(t, "modern")
	h := e.pool.Plugin("fake", "1.0.0")
	if _, err := h.CheckConfig(context.Background(), resource.CheckRequest{URN: fakeURN, News: resource.PropertyMap{"region": "eu"}}); err != nil {
		t.Fatal(err)
	}
	e.configure(t, resource.PropertyMap{"region": "us"})
	started := map[int]string{}
	for _, r := range e.calls("start") {
		started[r.Pid] = r.Data["config"].(string)
	}
	for _, r := range e.calls("Configure") {
		if cfg := started[r.Pid]; !strings.Contains(cfg, "us") {
			t.Errorf("the us configuration went to a process started with PULUMI_CONFIG=%s", cfg)
		}
	}
}

// A spare started for one project's CheckConfig serves another project's
// Configure of the same configuration: one process, not an idle spare
// beside a second one (projects run in parallel).
func TestSpareClaimedAcrossProjects(t *testing.T) {
	e := newEnv(t, "modern")
	h := e.pool.Plugin("fake", "1.0.0")
	other := resource.URN("urn:pulumi:dev::api::pulumi:providers:fake::default")
	if _, err := h.CheckConfig(context.Background(), resource.CheckRequest{URN: other, News: resource.PropertyMap{"region": "eu"}}); err != nil {
		t.Fatal(err)
	}
	e.configure(t, resource.PropertyMap{"region": "eu"})
	if n := len(e.calls("start")); n != 1 {
		t.Errorf("%d processes, want 1", n)
	}
}

func TestCloseEndsTheGroup(t *testing.T) {
	defer func(d time.Duration) { killGrace = d }(killGrace)
	killGrace = 500 * time.Millisecond
	for _, mode := range []string{"child", "ignoreint"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			e.configure(t, resource.PropertyMap{})
			pid := e.calls("start")[0].Pid
			var child int
			if mode == "child" {
				child = int(e.calls("child")[0].Data["pid"].(float64))
			}
			if err := e.pool.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if alive(pid) {
				t.Errorf("plugin %d survived Close", pid)
			}
			if child != 0 {
				waitGone(t, child)
			}
			if len(e.calls("Cancel")) != 1 || len(e.calls("SIGINT")) != 1 {
				t.Errorf("Close sent Cancel %d times and SIGINT %d times, want once each", len(e.calls("Cancel")), len(e.calls("SIGINT")))
			}
			if _, err := e.pool.Plugin("fake", "").CheckConfig(context.Background(), resource.CheckRequest{}); !errors.Is(err, errClosed) {
				t.Errorf("call after Close: %v", err)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	e := newEnv(t, "modern")
	e.configure(t, resource.PropertyMap{})
	if err := e.pool.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.calls("Cancel")); n != 1 {
		t.Errorf("%d Cancels, want 1", n)
	}
}

// runHelper is a runner stand-in for TestPdeathsig: it starts a fake
// plugin, prints the plugin's pid and waits to be killed.
func runHelper() int {
	pool := NewPool(PoolOptions{Environ: append(os.Environ(), "PLUGINHOST_FAKE=modern"),
		Locate: func(string, string) (string, error) { return os.Getenv("PLUGINHOST_HELPER"), nil }})
	p, err := pool.Plugin("fake", "").Configure(context.Background(), resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(p.(*configured).p.proc.pid)
	time.Sleep(time.Minute)
	return 0
}

func TestPdeathsig(t *testing.T) {
	helper := exec.Command(fakeBinary(t))
	helper.Env = append(os.Environ(), "PLUGINHOST_HELPER="+fakeBinary(t), "FAKE_DIR="+t.TempDir())
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("helper said %q", line)
	}
	if !alive(pid) {
		t.Fatal("the plugin is not running")
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	waitGone(t, pid)
}

func TestNoGroupSignalAfterExit(t *testing.T) {
	e := newEnv(t, "modern")
	e.configure(t, resource.PropertyMap{})
	e.pool.mu.Lock()
	p := e.pool.plugins[0]
	e.pool.mu.Unlock()
	if err := syscall.Kill(p.proc.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.proc.exited
	if p.proc.signal(syscall.SIGINT) {
		t.Error("a signal went to the group of a plugin already waited for: its ID may belong to another group now")
	}
	p.closeDown(context.Background())
	p.closeDown(context.Background()) // twice: once only
}

func TestWaitExitStartsNoGoroutine(t *testing.T) {
	defer func(d time.Duration) { drainWait = d }(drainWait)
	drainWait = 10 * time.Millisecond
	p := &process{exited: make(chan struct{}), drained: make(chan struct{})}
	p.draining.Store(2) // a child of the plugin holds its output open
	close(p.exited)
	before := runtime.NumGoroutine()
	for range 20 {
		if !p.waitExit(0) {
			t.Fatal("waitExit says an exited process is running")
		}
	}
	if n := runtime.NumGoroutine() - before; n > 2 {
		t.Errorf("%d goroutines left behind by 20 waitExit calls", n)
	}
}

func TestConfigureBoundedByTheCaller(t *testing.T) {
	e := newEnv(t, "modern")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.pool.Plugin("fake", "1.0.0").Configure(ctx, resource.ConfigureRequest{URN: fakeURN, Inputs: resource.PropertyMap{}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("Configure with a caller's deadline = %v after %s", err, time.Since(start))
	}
	e.configure(t, resource.PropertyMap{}) // the Configure went on for the other waiters
	if n := len(e.calls("Configure")); n != 1 {
		t.Errorf("%d Configures, want 1", n)
	}
}

// A process started ahead (Start) is the one the provider's CheckConfig
// and Configure then use: one process, started before any call.
func TestStartAheadIsClaimed(t *testing.T) {
	e := newEnv(t, "modern")
	h := e.pool.Plugin("fake", "1.0.0")
	h.(resource.Starter).Start(fakeURN, resource.PropertyMap{"region": "eu"})
	for deadline := time.Now().Add(10 * time.Second); len(e.calls("start")) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Start started no process")
		}
	}
	if _, err := h.CheckConfig(context.Background(), resource.CheckRequest{URN: fakeURN, News: resource.PropertyMap{"region": "eu"}}); err != nil {
		t.Fatal(err)
	}
	e.configure(t, resource.PropertyMap{"region": "eu"})
	if n := len(e.calls("start")); n != 1 {
		t.Errorf("%d processes, want 1", n)
	}
}
