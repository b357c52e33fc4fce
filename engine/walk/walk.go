// Package walk visits the vertices of a dependency graph: each vertex after
// the vertices it depends on, at most a bound of them at once, the
// dependents of a failed vertex skipped, and nothing new started once the
// context ends. Both the engine's resource steps and the runner's projects
// are walked with it.
package walk

import (
	"context"
	"fmt"
)

// Status is how a vertex ended.
type Status uint8

// The statuses. Cancelled is the zero value: a vertex that never started
// because the context ended or a fail-fast walk stopped first.
const (
	Cancelled Status = iota
	Succeeded
	Failed
	Skipped // a vertex it depends on failed
)

func (s Status) String() string {
	switch s {
	case Succeeded:
		return "succeeded"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return "cancelled"
}

// Outcome is the end of one vertex.
type Outcome struct {
	Status Status
	// Err is the visit's error when Failed.
	Err error
	// Cause is, when Skipped, the failed vertex upstream of this one.
	Cause int
}

// Options shape a walk.
type Options struct {
	// Parallel bounds how many visits run at once (less than 1: one).
	Parallel int
	// FailFast stops starting vertices after the first failure; without it
	// vertices that do not depend on the failure go on.
	FailFast bool
	// Reverse turns every edge around: a vertex is visited after the
	// vertices that depend on it (the order of a destroy).
	Reverse bool
	// Done, when set, is called on the goroutine that called Walk each time
	// a visit returns, before any dependent of the vertex starts; the
	// calls never overlap, so Done may record results without locks.
	Done func(v int, err error)
}

// Result is the end of a walk.
type Result struct {
	// Outcomes holds each vertex's outcome, by vertex.
	Outcomes []Outcome
	// Canceled is set when the context ended before the walk did and
	// before a failure had stopped a fail-fast walk.
	Canceled bool
}

// CycleError is a graph whose vertices depend on each other in a cycle.
type CycleError struct {
	// Vertices are the vertices in a cycle or behind one, in order.
	Vertices []int
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("the graph has a dependency cycle through the vertices %v", e.Vertices)
}

// Walk calls visit once for every vertex 0..len(deps)-1, where deps[v] lists
// the vertices v depends on. A vertex starts when every vertex it depends on
// has succeeded; among the vertices ready at once, the lowest numbered
// starts first. The vertices downstream of a failure are skipped. Once ctx
// ends no vertex starts; visits in flight get ctx and are waited for, and
// every vertex that did not start is cancelled (also downstream of a visit
// that failed after the end). Walk returns an error, before visiting
// anything, when deps names a vertex that does not exist or has a cycle.
func Walk(ctx context.Context, deps [][]int, opts Options, visit func(ctx context.Context, v int) error) (Result, error) {
	w, err := newWalker(deps, opts.Reverse)
	if err != nil {
		return Result{}, err
	}
	w.opts, w.visit = opts, visit
	w.bound = max(1, min(opts.Parallel, len(deps))) // more than the vertices: as unbounded
	w.run(ctx)
	return w.res, nil
}

// walker is one walk's state, owned by the goroutine that called Walk.
type walker struct {
	opts  Options
	visit func(ctx context.Context, v int) error
	bound int

	pending []int32 // per vertex: vertices still to succeed before it may start
	next    [][]int // per vertex: the vertices waiting on it
	ready   minHeap
	res     Result
	done    chan finished
}

type finished struct {
	v   int
	err error
}

// newWalker checks the graph and counts each vertex's pending edges. In a
// forward walk the vertices waiting on v are its dependents (laid out in
// one backing array); in a reverse walk they are deps[v] itself.
func newWalker(deps [][]int, reverse bool) (*walker, error) {
	n := len(deps)
	w := &walker{pending: make([]int32, n), res: Result{Outcomes: make([]Outcome, n)}}
	edges := 0
	for v, ds := range deps {
		for _, d := range ds {
			if d < 0 || d >= n {
				return nil, fmt.Errorf("vertex %d depends on vertex %d, which is not in the graph of %d vertices", v, d, n)
			}
			if reverse {
				w.pending[d]++
			}
		}
		edges += len(ds)
		if !reverse {
			w.pending[v] = int32(len(ds))
		}
	}
	if reverse {
		w.next = deps
	} else {
		w.next = dependents(deps, edges)
	}
	if err := w.checkAcyclic(); err != nil {
		return nil, err
	}
	for v := range n {
		if w.pending[v] == 0 {
			w.ready = append(w.ready, v) // ascending: already a heap
		}
	}
	return w, nil
}

// dependents inverts deps: out[d] lists the vertices that depend on d,
// in ascending order, all in one backing array.
func dependents(deps [][]int, edges int) [][]int {
	count := make([]int, len(deps))
	for _, ds := range deps {
		for _, d := range ds {
			count[d]++
		}
	}
	flat := make([]int, edges)
	out := make([][]int, len(deps))
	at := 0
	for d, c := range count {
		out[d] = flat[at : at : at+c]
		at += c
	}
	for v, ds := range deps {
		for _, d := range ds {
			out[d] = append(out[d], v)
		}
	}
	return out
}

// checkAcyclic reports the vertices that can never start because they are
// in (or behind) a cycle.
func (w *walker) checkAcyclic() error {
	left := append([]int32(nil), w.pending...)
	var queue []int
	for v, p := range left {
		if p == 0 {
			queue = append(queue, v)
		}
	}
	seen := 0
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		seen++
		for _, j := range w.next[v] {
			if left[j]--; left[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	if seen == len(left) {
		return nil
	}
	var stuck []int
	for v, p := range left {
		if p > 0 {
			stuck = append(stuck, v)
		}
	}
	return &CycleError{Vertices: stuck}
}

// run starts ready vertices up to the bound and, on this goroutine,
// handles each visit's end until none is in flight.
func (w *walker) run(ctx context.Context) {
	w.done = make(chan finished, w.bound)
	running, stopped := 0, false
	stop := func(canceled bool) {
		if !stopped {
			stopped, w.res.Canceled = true, canceled
		}
	}
	for {
		if ctx.Err() != nil {
			stop(true)
		}
		for !stopped && running < w.bound && len(w.ready) > 0 {
			v := w.ready.pop()
			w.res.Outcomes[v].Status = Succeeded // started; set to Failed below if it fails
			running++
			go func() { w.done <- finished{v, w.visit(ctx, v)} }()
		}
		if running == 0 {
			return
		}
		f := <-w.done // the visits in flight finish, also after ctx ended
		running--
		if ctx.Err() != nil {
			stop(true)
		}
		if w.opts.Done != nil {
			w.opts.Done(f.v, f.err)
		}
		if f.err != nil {
			w.res.Outcomes[f.v] = Outcome{Status: Failed, Err: f.err}
			if !w.res.Canceled { // after a cancel, what did not start is cancelled
				w.skip(f.v)
			}
			if w.opts.FailFast {
				stop(false)
			}
			continue
		}
		for _, j := range w.next[f.v] {
			if w.pending[j]--; w.pending[j] == 0 {
				w.ready.push(j)
			}
		}
	}
}

// skip marks every vertex downstream of the failed vertex as skipped.
func (w *walker) skip(failed int) {
	stack := append([]int(nil), w.next[failed]...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.res.Outcomes[v].Status == Skipped {
			continue
		}
		w.res.Outcomes[v] = Outcome{Status: Skipped, Cause: failed}
		stack = append(stack, w.next[v]...)
	}
}

// minHeap holds the ready vertices, the lowest on top.
type minHeap []int

func (h *minHeap) push(v int) {
	s := append(*h, v)
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
	*h = s
}

func (h *minHeap) pop() int {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(s) && s[l] < s[small] {
			small = l
		}
		if r := l + 1; r < len(s) && s[r] < s[small] {
			small = r
		}
		if small == i {
			break
		}
		s[i], s[small] = s[small], s[i]
		i = small
	}
	*h = s
	return top
}
