package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/source"
)

// localDialer is a hosted program whose host dials a Unix socket
// (source.LocalDialer) when local is set; it records the addresses it got.
type localDialer struct {
	hostedFunc
	local bool
	got   *source.RunRequest
}

func (l localDialer) DialsLocal() bool { return l.local }

func (l localDialer) Run(ctx context.Context, req source.RunRequest) error {
	*l.got = req
	return l.hostedFunc.Run(ctx, req)
}

// TestHostedLocalSocket checks that a program whose host dials a Unix
// socket is given one address for the monitor, the engine and the loader,
// on Linux an abstract Unix socket, and that the SDKs' whole sequence
// works on it (preview, up, no-op up); any other program gets the
// loopback port.
func TestHostedLocalSocket(t *testing.T) {
	e := newHostedEnv(t)
	var got source.RunRequest
	for _, tt := range []struct {
		op    func(context.Context, engine.Options, engine.Program) (*engine.Result, error)
		local bool
		same  int
	}{{engine.Preview, true, 0}, {engine.Up, true, 0}, {engine.Up, true, 4}, {engine.Up, false, 4}} {
		res, err := e.hosted(tt.op, localDialer{hostedFunc: sdkChain(t, true), local: tt.local, got: &got})
		if err != nil {
			t.Fatalf("local=%v: %v", tt.local, err)
		}
		if res.Changes[engine.OpSame] != tt.same {
			t.Errorf("local=%v: changes %v, want %d same", tt.local, res.Changes, tt.same)
		}
		want := "127.0.0.1:"
		if tt.local && runtime.GOOS == "linux" {
			want = "unix-abstract:runner-monitor-"
		}
		if !strings.HasPrefix(got.MonitorAddress, want) || got.EngineAddress != got.MonitorAddress || got.LoaderAddress != got.MonitorAddress {
			t.Errorf("local=%v: addresses %s", tt.local, fmt.Sprint(got.MonitorAddress, " ", got.EngineAddress, " ", got.LoaderAddress))
		}
	}
}
