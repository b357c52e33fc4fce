package runtime

import (
	"context"

	"github.com/runnerhq/runner/engine/source"
)

// hostSlot is the host of one engine address, which RequiredPackages and
// Run share, perhaps at the same time: the first call starts it, the
// others wait for its start. It stops once no call uses it and Run ended
// (or Release said no Run follows).
type hostSlot struct {
	ready chan struct{} // closed once started (hp) or failed to (err)
	hp    *hostProc
	err   error
	users int  // calls using it now
	done  bool // Run ended, or Release: stop when unused
}

// acquire returns the host of req's engine, starting it when none is, and
// the function that ends this call's use of it.
func (h *host) acquire(ctx context.Context, req source.RunRequest) (*hostProc, func(), error) {
	s, first := h.use(req)
	release := func() { h.release(req.EngineAddress, s, false) }
	if first {
		s.hp, s.err = h.startProc(ctx, req)
		close(s.ready)
	} else {
		select {
		case <-s.ready:
		case <-ctx.Done():
			release()
			return nil, nil, ctx.Err()
		}
	}
	if s.err != nil {
		release()
		return nil, nil, s.err
	}
	return s.hp, release, nil
}

// use returns the slot of req's engine and counts one more use of it;
// first: the caller starts its host.
func (h *host) use(req source.RunRequest) (s *hostSlot, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s = h.started[req.EngineAddress]
	first = s == nil
	if first {
		s = &hostSlot{ready: make(chan struct{})}
		h.started[req.EngineAddress] = s
	}
	s.users++
	return s, first
}

// startEarly starts the host of req's engine in the background, unless it
// is, for the Run that follows (or Release).
func (h *host) startEarly(ctx context.Context, req source.RunRequest) {
	s, first := h.use(req)
	if !first {
		h.release(req.EngineAddress, s, false)
		return
	}
	go func() {
		s.hp, s.err = h.startProc(ctx, req)
		close(s.ready)
		h.release(req.EngineAddress, s, false)
	}()
}

// release ends one use of s (last: no other use follows, as after Run or
// for Release), and stops its host once it is unused and done.
func (h *host) release(addr string, s *hostSlot, last bool) {
	h.mu.Lock()
	if last {
		s.done = true
		if h.started[addr] == s {
			delete(h.started, addr)
		}
	} else {
		s.users--
	}
	stop := s.done && s.users == 0
	h.mu.Unlock()
	if stop {
		<-s.ready
		if s.hp != nil {
			s.hp.stop()
		}
	}
}
