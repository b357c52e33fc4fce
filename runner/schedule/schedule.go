// Package schedule runs a set of interdependent jobs with bounded
// parallelism: a job starts as soon as every job it depends on has finished,
// and the dependents of a failed job are skipped instead of run.
package schedule

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Status is how a job ended.
type Status string

// The job statuses.
const (
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
	Skipped   Status = "skipped"   // an upstream job failed or was skipped
	Cancelled Status = "cancelled" // not started: the context ended or fail-fast stopped scheduling
)

// Outcome is the end of one job.
type Outcome struct {
	Status Status
	Err    error  // the job's error when Failed
	Cause  string // for Skipped: the upstream job that failed
}

// Plan describes the jobs: Deps maps each job to the jobs that must finish
// first. Every job appears as a key (with nil deps when it has none).
type Plan struct {
	Deps map[string][]string
	// Parallel bounds how many jobs run at once (0 or less: 1).
	Parallel int
	// FailFast stops starting new jobs after the first failure.
	FailFast bool
	// Less orders the jobs that are ready at the same time (nil: by name).
	Less func(a, b string) bool
}

// Reverse returns the plan with every edge turned around, so that a job
// runs after the jobs that depended on it (the order of a destroy).
func (p Plan) Reverse() Plan {
	deps := make(map[string][]string, len(p.Deps))
	for job := range p.Deps {
		if _, ok := deps[job]; !ok {
			deps[job] = nil
		}
		for _, d := range p.Deps[job] {
			deps[d] = append(deps[d], job)
		}
	}
	for job := range deps {
		sort.Strings(deps[job])
	}
	p.Deps = deps
	return p
}

// Run executes every job of the plan through run and returns each job's
// outcome. It returns an error only when the plan itself is wrong (an
// unknown dependency or a cycle). run is called with a context that is
// cancelled when ctx is; a job already running is left to finish.
func Run(ctx context.Context, p Plan, run func(ctx context.Context, job string) error) (map[string]Outcome, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	parallel := p.Parallel
	if parallel < 1 {
		parallel = 1
	}
	less := p.Less
	if less == nil {
		less = func(a, b string) bool { return a < b }
	}

	waiting := make(map[string]int, len(p.Deps)) // unfinished deps per job
	dependents := make(map[string][]string, len(p.Deps))
	for job, deps := range p.Deps {
		waiting[job] = len(deps)
		for _, d := range deps {
			dependents[d] = append(dependents[d], job)
		}
	}
	var ready []string
	for job, n := range waiting {
		if n == 0 {
			ready = append(ready, job)
		}
	}

	type done struct {
		job string
		err error
	}
	results := make(chan done)
	outcomes := make(map[string]Outcome, len(p.Deps))
	running := 0
	stopped := false
	var wg sync.WaitGroup

	// finish records a job's end and releases or skips its dependents.
	var finish func(job string, o Outcome)
	finish = func(job string, o Outcome) {
		outcomes[job] = o
		for _, dep := range dependents[job] {
			if _, ended := outcomes[dep]; ended {
				continue
			}
			if o.Status != Succeeded {
				cause := job
				if o.Status == Skipped {
					cause = o.Cause
				}
				if o.Status == Cancelled {
					continue // decided when scheduling stops
				}
				finish(dep, Outcome{Status: Skipped, Cause: cause})
				continue
			}
			waiting[dep]--
			if waiting[dep] == 0 {
				ready = append(ready, dep)
			}
		}
	}

	for len(outcomes) < len(p.Deps) {
		if !stopped && ctx.Err() != nil {
			stopped = true
		}
		if !stopped {
			sort.Slice(ready, func(i, j int) bool { return less(ready[i], ready[j]) })
			for len(ready) > 0 && running < parallel {
				job := ready[0]
				ready = ready[1:]
				if _, ended := outcomes[job]; ended {
					continue
				}
				running++
				wg.Add(1)
				go func() {
					defer wg.Done()
					results <- done{job, run(ctx, job)}
				}()
			}
		}
		if running == 0 {
			// Nothing in flight and nothing startable: mark the rest.
			for job := range p.Deps {
				if _, ended := outcomes[job]; !ended {
					outcomes[job] = Outcome{Status: Cancelled}
				}
			}
			break
		}
		select {
		case r := <-results:
			running--
			if r.err != nil {
				finish(r.job, Outcome{Status: Failed, Err: r.err})
				if p.FailFast {
					stopped = true
				}
			} else {
				finish(r.job, Outcome{Status: Succeeded})
			}
		case <-ctx.Done():
			stopped = true
			// Wait for the jobs in flight; their results still arrive.
			r := <-results
			running--
			if r.err != nil {
				finish(r.job, Outcome{Status: Failed, Err: r.err})
			} else {
				finish(r.job, Outcome{Status: Succeeded})
			}
		}
	}
	wg.Wait()
	return outcomes, nil
}

// check reports unknown dependencies and cycles.
func (p Plan) check() error {
	for job, deps := range p.Deps {
		for _, d := range deps {
			if _, ok := p.Deps[d]; !ok {
				return fmt.Errorf("job %q depends on %q, which is not in the plan", job, d)
			}
		}
	}
	const (
		unseen = iota
		onPath
		finished
	)
	mark := make(map[string]int, len(p.Deps))
	var path []string
	var visit func(string) error
	visit = func(j string) error {
		switch mark[j] {
		case onPath:
			i := len(path) - 1
			for path[i] != j {
				i--
			}
			cycle := append(append([]string{}, path[i:]...), j)
			return fmt.Errorf("the plan has a cycle: %s", joinArrows(cycle))
		case finished:
			return nil
		}
		mark[j] = onPath
		path = append(path, j)
		deps := append([]string(nil), p.Deps[j]...)
		sort.Strings(deps)
		for _, d := range deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		mark[j] = finished
		return nil
	}
	jobs := make([]string, 0, len(p.Deps))
	for j := range p.Deps {
		jobs = append(jobs, j)
	}
	sort.Strings(jobs)
	for _, j := range jobs {
		if err := visit(j); err != nil {
			return err
		}
	}
	return nil
}

func joinArrows(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " -> "
		}
		out += x
	}
	return out
}
