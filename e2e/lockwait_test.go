package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCtrlCEndsAWaitForTheConfigLock: a command waiting (up to a minute)
// for another runner command's lock on the stack config ignored the first
// Ctrl-C. It must end at once with exit 130, changing nothing.
func TestCtrlCEndsAWaitForTheConfigLock(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "stack", "init", "dev")
	cfg := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	before, _ := os.ReadFile(cfg)
	lock, err := os.OpenFile(filepath.Join(dir, "config", "pulumi", ".Pulumi.dev.yaml.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--root", dir, "config", "set", "app:port", "9443")
	cmd.Env = baseEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // it waits for the lock by now
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("config set interrupted while it waited for the lock: %v, want exit 130\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "waiting for another runner command") {
			t.Errorf("the interruption does not say what it was waiting for:\n%s", stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("config set still waits %s after Ctrl-C", time.Since(start))
	}
	if after, _ := os.ReadFile(cfg); string(after) != string(before) {
		t.Errorf("the interrupted config set changed the file:\n%s", after)
	}
}
