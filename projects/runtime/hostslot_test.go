package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/runnerhq/runner/engine/source"
)

// TestHostSharedByListingAndRun checks that RequiredPackages and Run,
// called at once for one engine, share one host started once, and that
// the host stops only when neither uses it any more and no Run follows
// (Run ended, or Release said none comes), in either order.
func TestHostSharedByListingAndRun(t *testing.T) {
	for _, runEndsFirst := range []bool{false, true} {
		var starts atomic.Int32
		starting := make(chan struct{})
		h := &host{started: map[string]*hostSlot{}}
		h.startProc = func(context.Context, source.RunRequest) (*hostProc, error) {
			starts.Add(1)
			<-starting // both callers arrive while the host starts
			conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
			return &hostProc{conn: conn}, err
		}
		req := source.RunRequest{EngineAddress: "127.0.0.1:9"}
		var wg sync.WaitGroup
		hps := make([]*hostProc, 2)
		dones := make([]func(), 2)
		for i := range 2 {
			wg.Go(func() {
				var err error
				if hps[i], dones[i], err = h.acquire(context.Background(), req); err != nil {
					t.Error(err)
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		close(starting)
		wg.Wait()
		if t.Failed() {
			return
		}
		if starts.Load() != 1 || hps[0] != hps[1] {
			t.Fatalf("%d hosts started for one engine, want 1 shared", starts.Load())
		}
		stopped := func() bool { return hps[0].conn.GetState() == connectivity.Shutdown }
		listing, run := dones[0], dones[1]
		if runEndsFirst {
			run()
			h.Release(req) // as Run's end does: no Run follows
			if stopped() {
				t.Fatal("the host stopped while its packages were still being listed")
			}
			listing()
		} else {
			listing()
			h.Release(req) // the operation ended; Run still runs
			if stopped() {
				t.Fatal("the host stopped while its program still ran")
			}
			run()
		}
		if !stopped() {
			t.Fatalf("runEndsFirst=%v: the host was not stopped once unused", runEndsFirst)
		}
	}
}

// TestHostKeptFromListingToRun checks that the host RequiredPackages
// started stays up, unused, for the Run that follows, which uses it.
func TestHostKeptFromListingToRun(t *testing.T) {
	starts := 0
	h := &host{started: map[string]*hostSlot{}}
	h.startProc = func(context.Context, source.RunRequest) (*hostProc, error) {
		starts++
		conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
		return &hostProc{conn: conn}, err
	}
	req := source.RunRequest{EngineAddress: "127.0.0.1:9"}
	listed, done, err := h.acquire(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done()
	if listed.conn.GetState() == connectivity.Shutdown {
		t.Fatal("the host stopped once its packages were listed, before its Run")
	}
	run, done, err := h.acquire(context.Background(), req)
	if err != nil || run != listed || starts != 1 {
		t.Fatalf("Run got another host (%d started, %v)", starts, err)
	}
	done()
	h.Release(req)
	if run.conn.GetState() != connectivity.Shutdown {
		t.Fatal("the host was not stopped after its Run")
	}
}

// TestHostStartedEarly checks the host started in the background when the
// package list was kept (startEarly): the Run that follows uses that one
// host, and with no Run, Release stops it even while it still starts.
func TestHostStartedEarly(t *testing.T) {
	for _, run := range []bool{true, false} {
		var starts atomic.Int32
		starting := make(chan struct{})
		h := &host{started: map[string]*hostSlot{}}
		var started atomic.Pointer[hostProc]
		h.startProc = func(context.Context, source.RunRequest) (*hostProc, error) {
			starts.Add(1)
			<-starting
			conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
			hp := &hostProc{conn: conn}
			started.Store(hp)
			return hp, err
		}
		req := source.RunRequest{EngineAddress: "127.0.0.1:9"}
		h.startEarly(context.Background(), req)
		if run {
			close(starting)
			got, done, err := h.acquire(context.Background(), req)
			if err != nil || got != started.Load() || starts.Load() != 1 {
				t.Fatalf("Run got another host (%d started, %v)", starts.Load(), err)
			}
			done()
			h.Release(req)
		} else {
			h.Release(req) // the operation ended before its program ran
			close(starting)
		}
		stopped := func() bool { hp := started.Load(); return hp != nil && hp.conn.GetState() == connectivity.Shutdown }
		deadline := time.Now().Add(5 * time.Second)
		for !stopped() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if !stopped() {
			t.Fatalf("run=%v: the host started early was not stopped", run)
		}
	}
}
