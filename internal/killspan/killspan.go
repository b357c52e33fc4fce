// Package killspan draws the moments at which crash tests kill a run with
// SIGKILL: uniformly over the span an undisturbed run took, so that kills
// land inside runs, and shrinking that span whenever a kill came after the
// run had ended (a loaded machine measured the undisturbed run slow, then
// ran faster). It is safe for concurrent use by parallel tests.
package killspan

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// Span is the length kill moments are drawn from.
type Span struct{ d atomic.Int64 }

// New returns a span of the length of an undisturbed run.
func New(undisturbed time.Duration) *Span {
	s := &Span{}
	s.d.Store(int64(max(undisturbed, time.Millisecond)))
	return s
}

// Draw returns a random moment within the span, at least 1 ms in.
func (s *Span) Draw() time.Duration {
	return time.Duration(rand.Int64N(s.d.Load())) + time.Millisecond
}

// Missed records a kill that came after the run ended, ran after its
// start: the span shrinks to 90 % of that.
func (s *Span) Missed(ran time.Duration) {
	d := int64(ran * 9 / 10)
	for {
		old := s.d.Load()
		if d >= old || d < int64(time.Millisecond) || s.d.CompareAndSwap(old, d) {
			return
		}
	}
}

// Len is the span's current length.
func (s *Span) Len() time.Duration { return time.Duration(s.d.Load()) }
