package killspan

import (
	"testing"
	"time"
)

func TestSpan(t *testing.T) {
	s := New(100 * time.Millisecond)
	for range 1000 {
		if d := s.Draw(); d < time.Millisecond || d > 101*time.Millisecond {
			t.Fatalf("Draw = %s, outside the span", d)
		}
	}
	s.Missed(200 * time.Millisecond) // longer than the span: unchanged
	if s.Len() != 100*time.Millisecond {
		t.Fatalf("Len after a miss longer than the span = %s", s.Len())
	}
	s.Missed(50 * time.Millisecond)
	if s.Len() != 45*time.Millisecond {
		t.Fatalf("Len after a miss at 50ms = %s, want 45ms", s.Len())
	}
	for range 1000 {
		if d := s.Draw(); d > 46*time.Millisecond {
			t.Fatalf("Draw = %s after the span shrank to 45ms", d)
		}
	}
}
