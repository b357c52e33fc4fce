package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
)

// The second process of the lock tests acts on the backend folder named by
// envLockChild: "try" takes the lock and reports, "hold" takes it and exits
// without unlocking (leaving a stale lock).
const (
	envLockChild = "RUNNER_BACKEND_TEST_LOCK_DIR"
	envLockMode  = "RUNNER_BACKEND_TEST_LOCK_MODE"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envLockChild); dir != "" {
		os.Exit(lockChild(dir, os.Getenv(envLockMode)))
	}
	os.Exit(m.Run())
}

func lockChild(dir, mode string) int {
	f, err := Open(dir)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	_, err = f.Lock(context.Background(), "network", "dev", CurrentLockInfo("runner destroy"))
	if err != nil {
		var le *LockedError
		if errors.As(err, &le) {
			fmt.Println("LOCKED:", err)
			return 3
		}
		fmt.Println(err)
		return 2
	}
	fmt.Println("ACQUIRED")
	if mode == "hold" {
		return 0 // exit holding the lock
	}
	return 0
}

func runLockChild(t *testing.T, dir, mode string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLockChild+"="+dir, envLockMode+"="+mode)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func TestLockContention(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	holder := LockInfo{PID: os.Getpid(), Host: hostname(), User: "ann", Started: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), Command: "runner up"}
	l, err := f.Lock(ctx, "network", "dev", holder)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Lock(ctx, "network", "dev", CurrentLockInfo("runner destroy"))
	var le *LockedError
	if !errors.As(err, &le) || le.Stale {
		t.Fatalf("second Lock = %v, want a live *LockedError", err)
	}
	want := fmt.Sprintf("stack dev of project network is locked by runner up (pid %d on host %s, since 2026-05-01T10:00:00Z); wait for it to finish, then run again", os.Getpid(), hostname())
	if err.Error() != want {
		t.Fatalf("error = %q\nwant    %q", err, want)
	}
	// Another project on the same stack is not affected.
	other, err := f.Lock(ctx, "app", "dev", holder)
	if err != nil {
		t.Fatal(err)
	}
	other.Unlock()
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := f.Lock(ctx, "network", "dev", holder)
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	// A force-unlocked lock taken by someone else is not released by its old holder.
	if err := f.ForceUnlock(context.Background(), "network", "dev"); err != nil {
		t.Fatal(err)
	}
	l3, err := f.Lock(ctx, "network", "dev", CurrentLockInfo("runner refresh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Unlock(); err == nil {
		t.Fatal("the old holder released the new holder's lock")
	}
	if h, _ := f.LockHolder(context.Background(), "network", "dev"); h == nil || h.Command != "runner refresh" {
		t.Fatalf("holder = %+v", h)
	}
	l3.Unlock()
}

func hostname() string { h, _ := os.Hostname(); return h }

// TestStaleLock: the lock of a real process that held it and exited is
// taken over by the next Lock, which names the dead holder.
func TestStaleLock(t *testing.T) {
	dir := t.TempDir()
	out, code := runLockChild(t, dir, "hold")
	if code != 0 || !strings.Contains(out, "ACQUIRED") {
		t.Fatalf("child: %d %s", code, out)
	}
	f, _ := Open(dir)
	l, err := f.Lock(context.Background(), "network", "dev", CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatalf("Lock over a dead holder's lock = %v, want it taken over", err)
	}
	if p := l.Previous(); p == nil || p.Command != "runner destroy" {
		t.Fatalf("Previous = %+v, want the dead runner destroy", p)
	}
	msg := TakeoverWarning("stack dev of project network", *l.Previous())
	for _, part := range []string{"took over the lock of stack dev of project network from runner destroy (pid ", "no longer runs", "interrupted"} {
		if !strings.Contains(msg, part) {
			t.Errorf("warning %q does not say %q", msg, part)
		}
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestLockTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	f, _ := Open(dir)
	l, err := f.Lock(context.Background(), "network", "dev", CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, code := runLockChild(t, dir, "try")
	if code != 3 {
		t.Fatalf("the second process got the lock held by the first (exit %d): %s", code, out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the second process took %s to fail", d)
	}
	want := fmt.Sprintf("locked by runner up (pid %d on host %s", os.Getpid(), hostname())
	if !strings.Contains(out, want) || strings.Contains(out, "stale") {
		t.Fatalf("the second process says %q, want it to name the holder (%q)", out, want)
	}
	l.Unlock()
	out, code = runLockChild(t, dir, "try")
	if code != 0 {
		t.Fatalf("after Unlock the second process fails: %s", out)
	}
}

func TestLockRaceOneWinner(t *testing.T) {
	f := openTemp(t)
	const n = 16
	wins := make(chan Lock, n)
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			<-start
			l, err := f.Lock(context.Background(), "network", "dev", CurrentLockInfo("runner up"))
			if err != nil {
				errs <- err
				return
			}
			wins <- l
		}()
	}
	close(start)
	var won int
	for i := 0; i < n; i++ {
		select {
		case <-wins:
			won++
		case err := <-errs:
			var le *LockedError
			if !errors.As(err, &le) {
				t.Fatal(err)
			}
		}
	}
	if won != 1 {
		t.Fatalf("%d lockers won", won)
	}
}

func TestLockInfoStale(t *testing.T) {
	me := CurrentLockInfo("runner up")
	if me.ProcessStart == "" {
		testenv.Unavailable(t, "this system has no /proc/<pid>/stat, where a lock's process start time is read")
	}
	dead := deadPID(t)
	tests := []struct {
		name   string
		holder LockInfo
		stale  bool
	}{
		{"this process", me, false},
		{"this process, start unknown (an older lock)", LockInfo{PID: me.PID, Host: me.Host}, false},
		{"a gone process of this host", LockInfo{PID: dead, Host: me.Host, PIDNamespace: me.PIDNamespace}, true},
		// A holder that recorded no pid namespace (the Pulumi CLI's lock
		// files) is judged only from the host's own namespace, which sees
		// the pids of every container too.
		{"a gone process of this host, no namespace recorded", LockInfo{PID: dead, Host: me.Host}, me.PIDNamespace == initialPIDNamespace || me.PIDNamespace == ""},
		{"this pid reused by a process started later", LockInfo{PID: me.PID, Host: me.Host, ProcessStart: "1"}, true},
		{"a gone pid on another host", LockInfo{PID: dead, Host: me.Host + "-elsewhere"}, false},
		{"a live pid on another host, other start", LockInfo{PID: me.PID, Host: me.Host + "-elsewhere", ProcessStart: "1"}, false},
		{"no host recorded", LockInfo{PID: dead}, false},
		{"no pid recorded", LockInfo{Host: me.Host}, false},
		// Containers sharing a hostname and the state folder count pids
		// apart: a pid of another namespace is not judged from this one.
		{"a gone pid in another pid namespace", LockInfo{PID: dead, Host: me.Host, PIDNamespace: "pid:[1]"}, me.PIDNamespace == "pid:[1]"},
		{"a gone pid in this pid namespace", LockInfo{PID: dead, Host: me.Host, PIDNamespace: me.PIDNamespace}, true},
		// Machines of the same hostname (VMs cloned from one image) count
		// pids apart: a pid recorded on another boot is not judged here.
		{"a gone pid of another boot", LockInfo{PID: dead, Host: me.Host, PIDNamespace: me.PIDNamespace, BootID: me.BootID + "-elsewhere"}, false},
		{"this pid on another boot", LockInfo{PID: me.PID, Host: me.Host, PIDNamespace: me.PIDNamespace, BootID: me.BootID + "-elsewhere"}, false},
		// An earlier boot of this machine renews nothing: its lease expires.
		{"another boot, its lease expired", LockInfo{PID: me.PID, Host: me.Host, PIDNamespace: me.PIDNamespace, BootID: me.BootID + "-elsewhere", Expired: true}, true},
		{"a gone pid of this boot", LockInfo{PID: dead, Host: me.Host, PIDNamespace: me.PIDNamespace, BootID: me.BootID}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.holder.Stale(); got != tt.stale {
				t.Fatalf("Stale() = %v, want %v", got, tt.stale)
			}
		})
	}
}

func TestLockRecordsProcess(t *testing.T) {
	f := openTemp(t)
	l, err := f.Lock(context.Background(), "network", "dev", LockInfo{Command: "runner up"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	h, err := f.LockHolder(context.Background(), "network", "dev")
	if err != nil || h == nil {
		t.Fatal(h, err)
	}
	me := CurrentLockInfo("")
	if h.PID != me.PID || h.Host != me.Host || h.ProcessStart != me.ProcessStart || h.Started.IsZero() {
		t.Fatalf("holder = %+v, want pid %d on %s started at %s", h, me.PID, me.Host, me.ProcessStart)
	}
}

// TestZombieHolderIsDead: a holder killed but not yet reaped by its parent
// (a zombie: kill(pid, 0) still succeeds) no longer runs, so its lock is
// taken over; before, `stack ls` right after a kill showed no interrupted
// run and the lock looked held.
func TestZombieHolderIsDead(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run sleep: %v", err)
	}
	pid := cmd.Process.Pid
	h := LockInfo{PID: pid, Host: hostname(), ProcessStart: processStart(pid), PIDNamespace: pidNamespace(), Command: "runner up"}
	if h.Dead() {
		t.Fatal("a running holder is judged dead")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait() //nolint:errcheck // reaped at the end only
	deadline := time.Now().Add(5 * time.Second)
	for !h.Dead() {
		if time.Now().After(deadline) {
			t.Fatal("a killed, unreaped holder (a zombie) is not judged dead")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
