package crashtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
)

// earlyKills is how many moments of a first up are tried.
const earlyKills = 20

// TestKillEarlyInFirstUp kills a first up of a fresh stack with SIGKILL at
// 20 early moments, spread evenly over the first 60 % of an undisturbed
// first up counted from the instant its lock file appears: while the
// journal opens, the root stack resource and the default provider are
// journaled, and the first resources are created. Each time the next
// preview, up and destroy succeed and no file is created twice.
func TestKillEarlyInFirstUp(t *testing.T) {
	span := killEarly(t, t.TempDir(), -1)
	t.Logf("an undisturbed first up runs %s after taking its lock", span)
	for i := range earlyKills {
		delay := span * 6 / 10 * time.Duration(i) / earlyKills
		t.Run("after"+delay.Round(time.Microsecond).String(), func(t *testing.T) {
			dir := t.TempDir()
			killEarly(t, dir, delay)
			opts := inProcess(t, dir)
			if _, err := engine.Preview(context.Background(), opts, program(dir, 0)); err != nil {
				t.Fatalf("preview after a kill %s into a first up: %v", delay, err)
			}
			if _, err := engine.Up(context.Background(), opts, program(dir, 0)); err != nil {
				t.Fatalf("up after a kill %s into a first up: %v", delay, err)
			}
			checkConverged(t, dir, 0)
			if _, err := engine.Destroy(context.Background(), opts); err != nil {
				t.Fatalf("destroy after a kill %s into a first up: %v", delay, err)
			}
			left, _ := os.ReadDir(filepath.Join(dir, "out"))
			for _, e := range left {
				if !strings.Contains(e.Name(), ".tmp") { // a temporary file of a write the kill cut short
					t.Errorf("destroy left %s", e.Name())
				}
			}
		})
	}
}

// killEarly starts a first up in a child process and kills it delay after
// its lock file appears; with a negative delay it lets the up finish. It
// returns how long the child ran after its lock appeared.
func killEarly(t *testing.T, dir string, delay time.Duration) time.Duration {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+dir, envRound+"=0")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	lock := filepath.Join(dir, "state", ".pulumi", "locks", "organization", "crash", "dev", "runner.json")
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(lock); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("the first up ended before its lock was seen: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the first up never took its lock")
		}
		time.Sleep(20 * time.Microsecond)
	}
	locked := time.Now()
	if delay < 0 {
		<-done
		if !cmd.ProcessState.Success() {
			t.Fatalf("an undisturbed first up failed: %s", out.String())
		}
		return time.Since(locked)
	}
	for end := locked.Add(delay); time.Now().Before(end); {
		// spin: a timer this short would overshoot
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	return time.Since(locked)
}

// inProcess returns the options of the crash program's stack in dir, for
// operations run in the test's own process.
func inProcess(t *testing.T, dir string) engine.Options {
	t.Helper()
	b, err := backend.Open("file://" + filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	return engine.Options{
		Project: "crash", Stack: "dev", Backend: b, Crypter: testCrypter{},
		Plugins:  []resource.Plugin{watched{log: filepath.Join(dir, "events.log")}},
		Parallel: 8,
	}
}

// TestPreviewWhileUpRuns runs preview again and again, each time as a new
// reader of the folder, while up processes deploy, change and shrink the
// stack from its first up on. Every preview reads a consistent state: it
// never meets a dangling reference or a journal it cannot apply.
func TestPreviewWhileUpRuns(t *testing.T) {
	dir := t.TempDir()
	ups := make(chan string, 1)
	go func() {
		defer close(ups)
		for round := 0; round < 6; round++ {
			if _, out := child(t, dir, round, 0); out != "" {
				ups <- "round " + strconv.Itoa(round) + ": " + out
				return
			}
		}
	}()
	previews := 0
	for {
		select {
		case msg, more := <-ups:
			if more {
				t.Fatalf("an up failed: %s", msg)
			}
			if previews < 20 {
				t.Fatalf("only %d previews ran while the ups did", previews)
			}
			t.Logf("%d previews ran during 6 ups", previews)
			return
		default:
		}
		opts := inProcess(t, dir)
		if _, err := engine.Preview(context.Background(), opts, program(dir, 0)); err != nil {
			t.Fatalf("preview %d while an up ran: %v", previews+1, err)
		}
		previews++
	}
}
