package crashtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugins/file"
	"github.com/runnerhq/runner/engine/resource"
)

const envInterrupt = "CRASHTEST_INTERRUPT_DIR"

func init() {
	if dir := os.Getenv(envInterrupt); dir != "" {
		os.Exit(interruptible(dir))
	}
}

// slow makes every create take a while, so that an interrupt lands while
// steps are in flight.
type slow struct{ file.Plugin }

func (s slow) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if !req.Preview {
		time.Sleep(30 * time.Millisecond) // a step in flight is left to finish
	}
	return s.Plugin.Create(ctx, req)
}

// interruptible runs an up that a SIGINT cancels, as runner's main does.
func interruptible(dir string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := backend.Open(filepath.Join(dir, "state"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = engine.Up(ctx, engine.Options{
		Project: "crash", Stack: "dev", Backend: b, Crypter: testCrypter{},
		Plugins: []resource.Plugin{slow{}}, Parallel: 2,
	}, program(dir, 0))
	if errors.Is(err, context.Canceled) {
		fmt.Println("canceled")
		return 130
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestInterruptLeavesConsistentState sends a real SIGINT to an up in
// flight: the process stops scheduling, lets running steps finish, saves
// the state and exits; no pending operation is left, and the next up
// converges.
func TestInterruptLeavesConsistentState(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envInterrupt+"="+dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the first files exist: 40 files at 2 x 30 ms take
	// about 0.6 s in all, so most are still to come.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if made, _ := os.ReadDir(filepath.Join(dir, "out")); len(made) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never started making files")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || !strings.Contains(out.String(), "canceled") {
		t.Fatalf("the interrupted up ended with %v:\n%s", err, out.String())
	}
	b, err := backend.Open(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := b.Load(context.Background(), "crash", "dev", testCrypter{})
	if err != nil {
		t.Fatalf("the state after an interrupt does not load: %v", err)
	}
	if len(snap.PendingOperations) != 0 {
		t.Fatalf("an interrupt left %d pending operations", len(snap.PendingOperations))
	}
	made := 0
	for _, r := range snap.Resources {
		if r.Type == file.Type {
			made++
			if _, err := os.Stat(r.ID); err != nil {
				t.Fatalf("the state records %s, which does not exist", r.ID)
			}
		}
	}
	if made == 0 || made == files {
		t.Fatalf("the interrupt did not land mid-run: %d of %d files made", made, files)
	}
	if _, out := child(t, dir, 0, 0); out != "" {
		t.Fatalf("the up after an interrupt did not converge: %s", out)
	}
	checkConverged(t, dir, 0)
}
