package schedule

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunOutcomes(t *testing.T) {
	diamond := map[string][]string{"a": nil, "b": {"a"}, "c": {"a"}, "d": {"b", "c"}, "e": nil}
	tests := []struct {
		name     string
		deps     map[string][]string
		fail     map[string]bool
		failFast bool
		want     map[string]Status
		cause    map[string]string
	}{
		{"all succeed", diamond, nil, false,
			map[string]Status{"a": Succeeded, "b": Succeeded, "c": Succeeded, "d": Succeeded, "e": Succeeded}, nil},
		{"failure skips dependents, independents carry on", diamond, map[string]bool{"b": true}, false,
			map[string]Status{"a": Succeeded, "b": Failed, "c": Succeeded, "d": Skipped, "e": Succeeded},
			map[string]string{"d": "b"}},
		{"root failure skips transitively with the root cause", diamond, map[string]bool{"a": true}, false,
			map[string]Status{"a": Failed, "b": Skipped, "c": Skipped, "d": Skipped, "e": Succeeded},
			map[string]string{"b": "a", "c": "a", "d": "a"}},
		{"fail-fast stops scheduling", map[string][]string{"a": nil, "b": {"a"}, "c": {"b"}}, map[string]bool{"a": true}, true,
			map[string]Status{"a": Failed, "b": Skipped, "c": Skipped}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			finished := map[string]bool{}
			got, err := Run(context.Background(), Plan{Deps: tt.deps, Parallel: 2, FailFast: tt.failFast}, func(ctx context.Context, job string) error {
				mu.Lock()
				defer mu.Unlock()
				for _, d := range tt.deps[job] {
					if !finished[d] {
						t.Errorf("%s started before its dependency %s finished", job, d)
					}
				}
				finished[job] = true
				if tt.fail[job] {
					return errors.New("boom")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for job, want := range tt.want {
				if got[job].Status != want {
					t.Errorf("%s: got %s, want %s", job, got[job].Status, want)
				}
			}
			for job, cause := range tt.cause {
				if got[job].Cause != cause {
					t.Errorf("%s: cause %q, want %q", job, got[job].Cause, cause)
				}
			}
		})
	}
}

func TestFailFastLeavesIndependentJobsUnstarted(t *testing.T) {
	deps := map[string][]string{"a": nil, "b": nil, "c": nil}
	got, err := Run(context.Background(), Plan{Deps: deps, Parallel: 1, FailFast: true}, func(ctx context.Context, job string) error {
		if job == "a" {
			return errors.New("boom")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got["a"].Status != Failed || got["b"].Status != Cancelled || got["c"].Status != Cancelled {
		t.Fatalf("got %+v", got)
	}
}

func TestParallelBound(t *testing.T) {
	deps := map[string][]string{}
	for _, j := range strings.Split("a b c d e f g h i j", " ") {
		deps[j] = nil
	}
	var now, peak int32
	_, err := Run(context.Background(), Plan{Deps: deps, Parallel: 3}, func(ctx context.Context, job string) error {
		n := atomic.AddInt32(&now, 1)
		for {
			p := atomic.LoadInt32(&peak)
			if n <= p || atomic.CompareAndSwapInt32(&peak, p, n) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		atomic.AddInt32(&now, -1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if peak != 3 {
		t.Fatalf("peak concurrency %d, want 3", peak)
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name string
		deps map[string][]string
		want string
	}{
		{"cycle", map[string][]string{"a": {"b"}, "b": {"a"}}, "a -> b -> a"},
		{"unknown dependency", map[string][]string{"a": {"zz"}}, `"zz", which is not in the plan`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), Plan{Deps: tt.deps}, func(context.Context, string) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestReverse(t *testing.T) {
	p := Plan{Deps: map[string][]string{"a": nil, "b": {"a"}, "c": {"b"}}}.Reverse()
	var order []string
	var mu sync.Mutex
	if _, err := Run(context.Background(), p, func(ctx context.Context, job string) error {
		mu.Lock()
		order = append(order, job)
		mu.Unlock()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "c,b,a" {
		t.Fatalf("order %v, want c,b,a", order)
	}
}

func TestCancelLetsRunningJobsFinish(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	deps := map[string][]string{"a": nil, "b": {"a"}}
	got, err := Run(ctx, Plan{Deps: deps, Parallel: 1}, func(ctx context.Context, job string) error {
		cancel()
		time.Sleep(5 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got["a"].Status != Succeeded || got["b"].Status != Cancelled {
		t.Fatalf("got %+v", got)
	}
}
