package process

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// TestTakenPortIsNamedWithItsHolder: a port another process (here the
// test itself) listens on makes the create fail at once, naming the port
// and the holder's pid, and starts nothing.
func TestTakenPortIsNamedWithItsHolder(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	in := resource.PropertyMap{
		"command":     []any{os.Args[0]},
		"environment": map[string]any{"PROCESS_TEST_LISTEN": addr},
		"pidFile":     filepath.Join(dir, "svc.pid"),
		"readyTcp":    addr,
	}
	start := time.Now()
	_, err = (Plugin{}).Create(context.Background(), resource.CreateRequest{Type: Type, Inputs: in})
	if err == nil {
		t.Fatal("a process whose port is taken was reported ready")
	}
	for _, want := range []string{"port " + port + " on 127.0.0.1", "already in use", fmt.Sprintf("pid %d", os.Getpid())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("the taken port was found only after %s", time.Since(start))
	}
	if _, err := os.Stat(filepath.Join(dir, "svc.pid")); !os.IsNotExist(err) {
		t.Error("a process was started on a taken port")
	}
}

// TestReadyWaitsForItsOwnListener: a port taken after the check, while the
// process starts, is not mistaken for the process's own listener.
func TestReadyWaitsForItsOwnListener(t *testing.T) {
	addr := freePort(t)
	exited := make(chan error, 1)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// A process of a session of its own, which holds no listener.
	other := exec.Command("sleep", "60")
	other.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	go func() { time.Sleep(300 * time.Millisecond); exited <- fmt.Errorf("exit status 1") }()
	err = waitReady(context.Background(), addr, other.Process.Pid, 5*time.Second, exited)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("waitReady with the port held by another process: %v", err)
	}
}

// TestChildOfTheSessionMayListen: a process that hands the listening to a
// child (a shell script starting a server) is ready when the child listens.
func TestChildOfTheSessionMayListen(t *testing.T) {
	addr := freePort(t)
	res := create(t, resource.PropertyMap{
		"command":     []any{os.Args[0]},
		"environment": map[string]any{"PROCESS_TEST_CHILD_LISTEN": addr},
		"readyTcp":    addr,
	})
	if res.ID == "" {
		t.Fatal("no pid")
	}
}

// TestEnvironmentKeepsNoSecret: the started process gets PATH and the
// like, and its declared variables, but nothing else of runner's
// environment (the passphrase above all).
func TestEnvironmentKeepsNoSecret(t *testing.T) {
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "process-test-passphrase")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "process-test-aws-secret")
	t.Setenv("LC_TIME", "C")
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	addr := freePort(t)
	create(t, resource.PropertyMap{
		"command":     []any{os.Args[0]},
		"environment": map[string]any{"PROCESS_TEST_LISTEN": addr, "PROCESS_TEST_ENV_OUT": out},
		"readyTcp":    addr,
	})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	for _, leak := range []string{"process-test-passphrase", "PULUMI_CONFIG_PASSPHRASE", "process-test-aws-secret"} {
		if strings.Contains(env, leak) {
			t.Errorf("the process's environment holds %s:\n%s", leak, env)
		}
	}
	for _, want := range []string{"PATH=" + os.Getenv("PATH"), "LC_TIME=C", "PROCESS_TEST_LISTEN=" + addr} {
		if !strings.Contains(env, want) {
			t.Errorf("the process's environment lacks %s:\n%s", want, env)
		}
	}
}

func TestEnvironment(t *testing.T) {
	got := Environment([]string{"PATH=/bin", "SECRET=x", "HOME=/h", "LC_ALL=C", "LCX=1"}, map[string]string{"HOME": "/other", "B": "2", "A": "1"})
	want := "PATH=/bin LC_ALL=C A=1 B=2 HOME=/other"
	if strings.Join(got, " ") != want {
		t.Fatalf("Environment = %v, want %s", got, want)
	}
}

func TestParseSocketTable(t *testing.T) {
	tcp := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:49F3 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0
   1: 0100007F:49F3 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 123457 1 0000000000000000 20 4 30 10 -1
   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 42 1 0000000000000000 100 0 0 10 0
`
	ls := parseSocketTable([]byte(tcp))
	if len(ls) != 2 || !ls[0].ip.Equal(net.IPv4(127, 0, 0, 1)) || ls[0].port != 18931 || ls[0].inode != 123456 ||
		!ls[1].ip.IsUnspecified() || ls[1].port != 8080 {
		t.Fatalf("parsed %+v", ls)
	}
	tcp6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 77 1 0000000000000000 100 0 0 10 0
`
	ls = parseSocketTable([]byte(tcp6))
	if len(ls) != 1 || !ls[0].ip.Equal(net.IPv6loopback) || ls[0].inode != 77 {
		t.Fatalf("parsed %+v", ls)
	}
}
