package walk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The graph of most tests:
//
//	0 ── 2 ── 4
//	1 ──┘└── 3
//	5
var diamond = [][]int{0: nil, 1: nil, 2: {0, 1}, 3: {2}, 4: {2}, 5: nil}

var errBoom = errors.New("boom")

// recorder visits vertices and records the order they started in.
type recorder struct {
	mu    sync.Mutex
	order []int
	fail  map[int]bool
}

func (r *recorder) visit(_ context.Context, v int) error {
	r.mu.Lock()
	r.order = append(r.order, v)
	r.mu.Unlock()
	if r.fail[v] {
		return fmt.Errorf("vertex %d: %w", v, errBoom)
	}
	return nil
}

func statuses(res Result) []Status {
	out := make([]Status, len(res.Outcomes))
	for i, o := range res.Outcomes {
		out[i] = o.Status
	}
	return out
}

const (
	ok   = Succeeded
	fail = Failed
	skip = Skipped
	canc = Cancelled
)

func TestWalk(t *testing.T) {
	tests := []struct {
		name      string
		deps      [][]int
		opts      Options
		fail      []int
		order     []int // with Parallel 1: the exact start order
		want      []Status
		wantCause map[int]int // skipped vertex -> failed upstream
	}{
		{name: "dependency order, ties lowest first", deps: diamond, opts: Options{Parallel: 1},
			order: []int{0, 1, 2, 3, 4, 5}, want: []Status{ok, ok, ok, ok, ok, ok}},
		{name: "a vertex that became ready goes before a higher one", deps: [][]int{{}, {}, {}, {0}},
			opts: Options{Parallel: 1}, order: []int{0, 1, 2, 3}, want: []Status{ok, ok, ok, ok}},
		{name: "ready lower vertex overtakes", deps: [][]int{{}, {0}, {}, {}},
			opts: Options{Parallel: 1}, order: []int{0, 1, 2, 3}, want: []Status{ok, ok, ok, ok}},
		{name: "reverse", deps: diamond, opts: Options{Parallel: 1, Reverse: true},
			order: []int{3, 4, 2, 0, 1, 5}, want: []Status{ok, ok, ok, ok, ok, ok}},
		{name: "failure skips dependents, others go on", deps: diamond, opts: Options{Parallel: 1}, fail: []int{1},
			order: []int{0, 1, 5}, want: []Status{ok, fail, skip, skip, skip, ok},
			wantCause: map[int]int{2: 1, 3: 1, 4: 1}},
		{name: "fail fast stops the rest", deps: diamond, opts: Options{Parallel: 1, FailFast: true}, fail: []int{1},
			order: []int{0, 1}, want: []Status{ok, fail, skip, skip, skip, canc},
			wantCause: map[int]int{2: 1, 3: 1, 4: 1}},
		{name: "failure in the middle", deps: diamond, opts: Options{Parallel: 1}, fail: []int{2},
			order: []int{0, 1, 2, 5}, want: []Status{ok, ok, fail, skip, skip, ok},
			wantCause: map[int]int{3: 2, 4: 2}},
		{name: "reverse failure skips upstream", deps: diamond, opts: Options{Parallel: 1, Reverse: true}, fail: []int{3},
			order: []int{3, 4, 5}, want: []Status{skip, skip, skip, fail, ok, ok},
			wantCause: map[int]int{0: 3, 1: 3, 2: 3}},
		{name: "duplicate edges", deps: [][]int{{}, {0, 0}, {1, 0, 1}}, opts: Options{Parallel: 1},
			order: []int{0, 1, 2}, want: []Status{ok, ok, ok}},
		{name: "empty graph", deps: nil, want: []Status{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{fail: map[int]bool{}}
			for _, v := range tt.fail {
				r.fail[v] = true
			}
			res, err := Walk(context.Background(), tt.deps, tt.opts, r.visit)
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(res); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("statuses = %v, want %v", got, tt.want)
			}
			if tt.order != nil && !reflect.DeepEqual(r.order, tt.order) {
				t.Errorf("start order = %v, want %v", r.order, tt.order)
			}
			for v, cause := range tt.wantCause {
				if got := res.Outcomes[v].Cause; got != cause {
					t.Errorf("vertex %d: cause = %d, want %d", v, got, cause)
				}
			}
			for _, v := range tt.fail {
				if o := res.Outcomes[v]; o.Status == Failed && !errors.Is(o.Err, errBoom) {
					t.Errorf("vertex %d: err = %v, want the visit's error", v, o.Err)
				}
			}
			if res.Canceled {
				t.Error("Canceled set without a canceled context")
			}
		})
	}
}

// TestDependencyOrder checks on a wide random-looking graph, with many
// visits at once, that no vertex starts before its dependencies (or, in
// reverse, its dependents) have finished.
func TestDependencyOrder(t *testing.T) {
	const n = 500
	deps := make([][]int, n)
	for v := range n {
		for _, d := range []int{v / 2, v / 3, v - 7} {
			if d >= 0 && d < v {
				deps[v] = append(deps[v], d)
			}
		}
	}
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			var finished [n]atomic.Bool
			var bad atomic.Int32
			before := func(v int) []int { return deps[v] }
			if reverse {
				after := dependents(deps, n*3)
				before = func(v int) []int { return after[v] }
			}
			_, err := Walk(context.Background(), deps, Options{Parallel: 8, Reverse: reverse}, func(_ context.Context, v int) error {
				for _, d := range before(v) {
					if !finished[d].Load() {
						bad.Add(1)
					}
				}
				finished[v].Store(true)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if bad.Load() != 0 {
				t.Errorf("%d vertices started before a vertex they wait on finished", bad.Load())
			}
		})
	}
}

func TestBoundNeverExceeded(t *testing.T) {
	for _, bound := range []int{0, 1, 3, 16, math.MaxInt} { // more than the vertices: all at once
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			want := int32(max(1, min(bound, 64)))
			deps := make([][]int, 64) // independent: as much parallelism as allowed
			var now, peak atomic.Int32
			full := make(chan struct{}) // closed once want visits run at once
			var once sync.Once
			_, err := Walk(context.Background(), deps, Options{Parallel: bound}, func(context.Context, int) error {
				n := now.Add(1)
				defer now.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if n >= want {
					once.Do(func() { close(full) })
				}
				select { // hold the first visits until the bound is reached
				case <-full:
				case <-time.After(2 * time.Second): // a walk below its bound fails below
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if peak.Load() != want {
				t.Errorf("peak visits at once = %d, want %d", peak.Load(), want)
			}
		})
	}
}

// TestCancel cancels the context while vertex 0 runs: it finishes with
// the context it got, nothing else starts, and the rest are cancelled.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started []int
	var mu sync.Mutex
	res, err := Walk(ctx, diamond, Options{Parallel: 1}, func(ctx context.Context, v int) error {
		mu.Lock()
		started = append(started, v)
		mu.Unlock()
		if v == 0 {
			cancel()
			<-ctx.Done() // the visit in flight sees the end and is waited for
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled {
		t.Error("Canceled not set")
	}
	if !reflect.DeepEqual(started, []int{0}) {
		t.Errorf("started %v, want only [0]", started)
	}
	if want := []Status{ok, canc, canc, canc, canc, canc}; !reflect.DeepEqual(statuses(res), want) {
		t.Errorf("statuses = %v, want %v", statuses(res), want)
	}
}

// TestCancelThenFailure: a visit that fails because the context ended
// leaves its dependents cancelled, not skipped.
func TestCancelThenFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Walk(ctx, diamond, Options{Parallel: 1}, func(ctx context.Context, v int) error {
		cancel()
		return ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Status{fail, canc, canc, canc, canc, canc}; !reflect.DeepEqual(statuses(res), want) {
		t.Errorf("statuses = %v, want %v", statuses(res), want)
	}
	if !errors.Is(res.Outcomes[0].Err, context.Canceled) || !res.Canceled {
		t.Errorf("outcome %+v, canceled %v", res.Outcomes[0], res.Canceled)
	}
}

func TestCancelBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Walk(ctx, diamond, Options{Parallel: 4}, func(context.Context, int) error {
		t.Error("a vertex started after the context ended")
		return nil
	})
	if err != nil || !res.Canceled {
		t.Fatalf("err %v, canceled %v; want nil, true", err, res.Canceled)
	}
}

// TestDoneBeforeDependents records results in Done without a lock and reads
// them from dependents' visits: a dependent that starts before Done recorded
// its dependency's result fails the walk, and Done calls that overlap (as
// they would on the visits' goroutines) are races the detector reports.
func TestDoneBeforeDependents(t *testing.T) {
	results := make([]int, len(diamond)) // one cell per vertex, as the engine keeps them
	var calls []int
	res, err := Walk(context.Background(), diamond, Options{Parallel: 4, Done: func(v int, err error) {
		results[v] = v * 10
		calls = append(calls, v)
	}}, func(_ context.Context, v int) error {
		for _, d := range diamond[v] {
			if results[d] != d*10 {
				return fmt.Errorf("vertex %d started before the result of %d was recorded", v, d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for v, o := range res.Outcomes {
		if o.Status != Succeeded {
			t.Errorf("vertex %d: %v (%v)", v, o.Status, o.Err)
		}
	}
	if len(calls) != len(diamond) {
		t.Errorf("Done called %d times, want %d", len(calls), len(diamond))
	}
}

func TestBadGraph(t *testing.T) {
	tests := []struct {
		name  string
		deps  [][]int
		stuck []int
	}{
		{name: "unknown vertex", deps: [][]int{{}, {2}}},
		{name: "negative vertex", deps: [][]int{{-1}}},
		{name: "cycle", deps: [][]int{{}, {2}, {1}, {2}}, stuck: []int{1, 2, 3}},
		{name: "self", deps: [][]int{{0}}, stuck: []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reverse := range []bool{false, true} {
				_, err := Walk(context.Background(), tt.deps, Options{Reverse: reverse}, func(context.Context, int) error {
					t.Error("visited a vertex of a bad graph")
					return nil
				})
				if err == nil {
					t.Fatal("no error")
				}
				var cyc *CycleError
				if errors.As(err, &cyc) != (tt.stuck != nil) {
					t.Fatalf("err = %v", err)
				}
				if cyc != nil && !reverse && !reflect.DeepEqual(cyc.Vertices, tt.stuck) {
					t.Errorf("stuck = %v, want %v", cyc.Vertices, tt.stuck)
				}
			}
		})
	}
}

func BenchmarkWalk10k(b *testing.B) {
	const n = 10_000
	deps := make([][]int, n)
	for v := 1; v < n; v++ {
		deps[v] = []int{v / 2} // a binary tree: wide and deep
	}
	b.ReportAllocs()
	for b.Loop() {
		var results [n]bool
		_, err := Walk(context.Background(), deps, Options{Parallel: 8, Done: func(v int, _ error) { results[v] = true }},
			func(context.Context, int) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}
