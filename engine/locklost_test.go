package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestLostLockCancelsTheRun clears the project's lock while an up runs
// (as `runner stack unlock --force` from elsewhere would): the run starts
// no new step, its commit is refused (ErrFenced), and the error says the
// lock was lost.
func TestLostLockCancelsTheRun(t *testing.T) {
	be := plugintest.NewBackend()
	plug := &plugintest.Plugin{Latency: 50 * time.Millisecond}
	opts := engine.Options{Project: project, Stack: stack, Backend: be,
		Plugins: []resource.Plugin{plug}, Crypter: statetest.NewCrypter(7), Parallel: 1}
	go func() {
		for len(plug.CallsOf("Create")) < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		_ = be.ForceUnlock(context.Background(), project, stack)
	}()
	_, err := engine.Up(context.Background(), opts, wideProgram(40))
	if !errors.Is(err, backend.ErrLockLost) && !errors.Is(err, backend.ErrFenced) {
		t.Fatalf("up whose lock was cleared = %v, want the lock lost and the commit fenced", err)
	}
	if !errors.Is(err, backend.ErrFenced) {
		t.Fatalf("up whose lock was cleared committed: %v", err)
	}
	if n := len(plug.CallsOf("Create")); n >= 40 {
		t.Fatalf("%d creates: the run went on after its lock was lost", n)
	}
	if got := be.Get(project, stack); got != nil && len(got.Resources) > 0 {
		t.Fatalf("the fenced run's state was committed: %d resources", len(got.Resources))
	}
}
