package view

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/runner/event"
)

// Live is the terminal view: finished project blocks scroll up as in Plain,
// and below them a status area shows each project in flight with its latest
// step and elapsed time, redrawn in place.
type Live struct {
	mu       sync.Mutex
	plain    *Plain
	w        *stickyWriter
	inflight map[string]*status
	drawn    int // status lines currently on screen
	stop     chan struct{}
	done     chan struct{}
	now      func() time.Time
}

type status struct {
	started time.Time
	last    string
	steps   int
}

// NewLive returns a live view on the terminal w; Close stops its ticker.
func NewLive(w io.Writer, color bool) *Live {
	plain := NewPlain(w, color)
	l := &Live{plain: plain, w: plain.w, inflight: map[string]*status{},
		stop: make(chan struct{}), done: make(chan struct{}), now: time.Now}
	go l.tick()
	return l
}

// Emit updates the status area and prints finished blocks above it.
func (l *Live) Emit(e event.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e.Type {
	case event.ProjectStart:
		l.inflight[e.Project] = &status{started: l.now(), last: "starting"}
	case event.StepStart:
		if s := l.inflight[e.Project]; s != nil {
			s.last = fmt.Sprintf("%s %s", e.Op, urnLabel(e.URN, e.Resource))
		}
	case event.StepDone, event.StepFailed:
		if s := l.inflight[e.Project]; s != nil {
			s.steps++
		}
	case event.ProjectDone, event.ProjectSkipped:
		delete(l.inflight, e.Project)
	}
	out := l.plain.render(e)
	l.clear()
	fmt.Fprint(l.w, out)
	l.draw()
}

// SetShowDurations says whether the blocks and the summary show durations
// (Plain's ShowDurations); the status area always shows elapsed time.
func (l *Live) SetShowDurations(show bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.plain.ShowDurations = show
}

// Above returns a sink that writes each event as a JSON line to w, a
// stream on the same terminal (stderr, for --debug), above the status
// area: the area is erased before the line and drawn again after it, so
// that the two never mix.
func (l *Live) Above(w io.Writer) event.Sink {
	j := NewJSON(w)
	return event.SinkFunc(func(e event.Event) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.clear()
		j.Emit(e)
		l.draw()
	})
}

// Err returns the first error of writing the view, nil when all of it was
// written.
func (l *Live) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.error("the output to stdout")
}

// Close stops redrawing and removes the status area.
func (l *Live) Close() {
	select {
	case <-l.stop:
		return
	default:
	}
	close(l.stop)
	<-l.done
	l.mu.Lock()
	l.clear()
	l.mu.Unlock()
}

func (l *Live) tick() {
	defer close(l.done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.mu.Lock()
			l.clear()
			l.draw()
			l.mu.Unlock()
		}
	}
}

// clear erases the status lines drawn last time.
func (l *Live) clear() {
	if l.drawn > 0 {
		fmt.Fprintf(l.w, "\x1b[%dA\x1b[J", l.drawn)
		l.drawn = 0
	}
}

// draw writes one status line per project in flight, sorted by name.
func (l *Live) draw() {
	if len(l.inflight) == 0 {
		return
	}
	names := make([]string, 0, len(l.inflight))
	for n := range l.inflight {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	for _, n := range names {
		s := l.inflight[n]
		el := l.now().Sub(s.started)
		f := frames[int(el/(100*time.Millisecond))%len(frames)]
		line := fmt.Sprintf("%s %s (%s, %d steps): %s", f, n, fmtDuration(el.Truncate(100*time.Millisecond)), s.steps, s.last)
		if len(line) > 120 {
			line = line[:117] + "..."
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprint(l.w, b.String())
	l.drawn = len(names)
}
