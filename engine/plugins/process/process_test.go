package process

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// TestMain lets the test binary act as a small server for readiness tests.
func TestMain(m *testing.M) {
	if out := os.Getenv("PROCESS_TEST_ENV_OUT"); out != "" {
		_ = os.WriteFile(out, []byte(strings.Join(os.Environ(), "\n")), 0o600)
	}
	if addr := os.Getenv("PROCESS_TEST_CHILD_LISTEN"); addr != "" {
		// A parent that leaves the listening to a child of its session.
		child := exec.Command(os.Args[0])
		child.Env = []string{"PROCESS_TEST_LISTEN=" + addr}
		if err := child.Run(); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	if addr := os.Getenv("PROCESS_TEST_LISTEN"); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			os.Exit(3)
		}
		for {
			c, err := l.Accept()
			if err == nil {
				c.Close()
			}
		}
	}
	os.Exit(m.Run())
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func create(t *testing.T, in resource.PropertyMap) resource.CreateResponse {
	t.Helper()
	ctx := context.Background()
	p := Plugin{}
	checked, err := p.Check(ctx, resource.CheckRequest{Type: Type, News: in})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Create(ctx, resource.CreateRequest{Type: Type, Inputs: checked})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Delete(context.Background(), resource.DeleteRequest{Type: Type, ID: res.ID, Inputs: checked, Outputs: res.Outputs})
	})
	return res
}

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	p := Plugin{}
	dir := t.TempDir()
	addr := freePort(t)
	in := resource.PropertyMap{
		"command":     []any{os.Args[0]},
		"environment": map[string]any{"PROCESS_TEST_LISTEN": addr},
		"pidFile":     filepath.Join(dir, "svc.pid"),
		"logFile":     filepath.Join(dir, "svc.log"),
		"readyTcp":    addr,
	}
	res := create(t, in)
	if c, err := net.Dial("tcp", addr); err != nil {
		t.Fatalf("the process is not listening after create: %v", err)
	} else {
		c.Close()
	}
	got, err := p.Read(ctx, resource.ReadRequest{Type: Type, ID: res.ID, Inputs: in, Outputs: res.Outputs})
	if err != nil || got.ID != res.ID {
		t.Fatalf("read of a live process: %+v, %v", got, err)
	}
	// Crash recovery: found again from the pid file alone.
	found, err := p.Read(ctx, resource.ReadRequest{Type: Type, Inputs: in})
	if err != nil || found.ID != res.ID {
		t.Fatalf("recognise by pid file: %+v, %v", found, err)
	}
	pid, _ := strconv.Atoi(res.ID)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err = p.Read(ctx, resource.ReadRequest{Type: Type, ID: res.ID, Inputs: in, Outputs: res.Outputs})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("refresh did not notice the killed process")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Delete(ctx, resource.DeleteRequest{Type: Type, ID: res.ID, Inputs: in, Outputs: res.Outputs}); err != nil {
		t.Fatalf("deleting a process that is already gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "svc.pid")); !os.IsNotExist(err) {
		t.Fatalf("pid file left behind: %v", err)
	}
}

func TestDeleteStopsProcess(t *testing.T) {
	in := resource.PropertyMap{"command": []any{"sleep", "60"}}
	res := create(t, in)
	pid, _ := strconv.Atoi(res.ID)
	ticks, _ := res.Outputs.Int("startTicks", 0)
	if !alive(pid, uint64(ticks)) {
		t.Fatal("sleep is not running")
	}
	if err := (Plugin{}).Delete(context.Background(), resource.DeleteRequest{Type: Type, ID: res.ID, Inputs: in, Outputs: res.Outputs}); err != nil {
		t.Fatal(err)
	}
	if alive(pid, uint64(ticks)) {
		t.Fatal("the process still runs after delete")
	}
}

func TestNotReadyFails(t *testing.T) {
	addr := freePort(t)
	in := resource.PropertyMap{"command": []any{"sleep", "60"}, "readyTcp": addr, "readyTimeoutSeconds": 1.0}
	_, err := (Plugin{}).Create(context.Background(), resource.CreateRequest{Type: Type, Inputs: in})
	if err == nil {
		t.Fatal("a process that never listens was reported ready")
	}
}

func TestPreviewHasNoSideEffect(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "x.pid")
	res, err := (Plugin{}).Create(context.Background(), resource.CreateRequest{Type: Type, Preview: true,
		Inputs: resource.PropertyMap{"command": []any{"sleep", "60"}, "pidFile": pidFile}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Outputs["pid"].(resource.Computed); !ok || res.ID != "" {
		t.Fatalf("preview outputs %+v", res)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Fatal("preview wrote the pid file")
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   resource.PropertyMap
		ok   bool
	}{
		{"valid", resource.PropertyMap{"command": []any{"sleep", "1"}}, true},
		{"missing command", resource.PropertyMap{}, false},
		{"empty command", resource.PropertyMap{"command": []any{}}, false},
		{"bad environment", resource.PropertyMap{"command": []any{"x"}, "environment": "A=1"}, false},
		{"unknown command in preview", resource.PropertyMap{"command": resource.Computed{}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := (Plugin{}).Check(context.Background(), resource.CheckRequest{Type: Type, News: tt.in})
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestPort(t *testing.T) {
	ctx := context.Background()
	p := Plugin{}
	tests := []struct {
		name    string
		in      resource.PropertyMap
		preview bool
		want    func(any) bool
	}{
		{"pinned", resource.PropertyMap{"port": 18443.0}, false, func(v any) bool { return v == 18443.0 }},
		{"free", resource.PropertyMap{}, false, func(v any) bool { f, ok := v.(float64); return ok && f > 0 }},
		{"free in preview is unknown", resource.PropertyMap{}, true, func(v any) bool { _, ok := v.(resource.Computed); return ok }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := p.Check(ctx, resource.CheckRequest{Type: PortType, News: tt.in})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Create(ctx, resource.CreateRequest{Type: PortType, Inputs: in, Preview: tt.preview})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(res.Outputs["assigned"]) {
				t.Fatalf("assigned = %v", res.Outputs["assigned"])
			}
		})
	}
	if _, err := p.Check(ctx, resource.CheckRequest{Type: PortType, News: resource.PropertyMap{"port": 70000.0}}); err == nil {
		t.Fatal("port 70000 accepted")
	}
}
