package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/source"
)

// stoppingHost is a hosted program whose process, as a language host's,
// is left to stop once its program ended: through the engine's StopLater.
type stoppingHost struct {
	run     hostedFunc
	saved   func() bool // whether the operation's state is saved
	stopped *atomic.Bool
	overlap *atomic.Bool // the state was saved while the host stopped
}

func (s stoppingHost) Run(ctx context.Context, req source.RunRequest) error {
	err := s.run.Run(ctx, req)
	stop := func() {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if s.saved() {
				s.overlap.Store(true)
				break
			}
		}
		fmt.Fprintln(req.Stdout, "host: stopped")
		s.stopped.Store(true)
	}
	if req.StopLater == nil {
		stop()
		return err
	}
	req.StopLater(stop)
	return err
}

// TestHostedHostStopsWhileTheStateIsSaved: once a program ended, its
// host's process stops while the engine saves the state (not before), and
// the operation ends only once it has stopped, with what it printed
// meanwhile in the project's log.
func TestHostedHostStopsWhileTheStateIsSaved(t *testing.T) {
	e := newHostedEnv(t)
	var stopped, overlap atomic.Bool
	h := stoppingHost{run: sdkChain(t, true), saved: func() bool { return e.find("b") != nil }, stopped: &stopped, overlap: &overlap}
	if _, err := e.hosted(engine.Up, h); err != nil {
		t.Fatalf("up: %v", err)
	}
	if !stopped.Load() {
		t.Fatal("the operation ended before the host stopped")
	}
	if !overlap.Load() {
		t.Error("the state was saved only after the host stopped")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.events {
		if strings.Contains(ev.Message, "host: stopped") {
			return
		}
	}
	t.Error("what the host printed while it stopped is not in the log")
}
