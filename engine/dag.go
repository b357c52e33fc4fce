package engine

import (
	"context"
	"runtime"

	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/stepgen"
	"github.com/runnerhq/runner/engine/walk"
)

// DefaultParallel is how many steps of one operation run at once when
// Options.Parallel is 0: 256, or 32 per CPU on a machine with more than
// eight. Steps mostly wait (on cloud APIs, on plugin calls, on the
// journal's fsyncs, which steps in flight share), so the bound is not the
// CPU count: with a plugin over gRPC, more steps in flight share each fsync
// and each write on the connection (10,000 creates: 705 fsyncs and 16,404
// writes at 256, 3,406 and 36,420 at 32). Terraform's default is 10,
// Pulumi's unbounded.
func DefaultParallel() int { return max(256, 32*runtime.GOMAXPROCS(0)) }

// task is one node of a step graph. run does the work on a worker goroutine
// and returns a commit function (possibly with an error) that the graph's
// owner goroutine calls to record the result in memory before any dependent
// starts.
type task struct {
	deps []int
	run  func(ctx context.Context) (commit func(), err error)
}

// dagRun is the outcome of runDAG.
type dagRun struct {
	errs     []error
	canceled bool
	ran      []bool // per task: started (and so finished)
}

// runDAG runs tasks in dependency order with at most parallel at once
// (less than 1: DefaultParallel). The first failure or the end of ctx stops
// new tasks from starting; tasks in flight finish (their plugin calls see a
// context that is not canceled).
func runDAG(ctx context.Context, tasks []task, parallel int) dagRun {
	if parallel < 1 {
		parallel = DefaultParallel()
	}
	deps := make([][]int, len(tasks))
	for i, t := range tasks {
		deps[i] = t.deps
	}
	// Written by the visit of task i, read by Done on the owner goroutine
	// after the visit returned: no lock needed.
	commits := make([]func(), len(tasks))
	var res dagRun
	workCtx := context.WithoutCancel(ctx)
	w, err := walk.Walk(ctx, deps, walk.Options{
		Parallel: parallel,
		FailFast: true,
		Done: func(i int, err error) {
			if commits[i] != nil {
				commits[i]()
			}
			if err != nil {
				res.errs = append(res.errs, err)
			}
		},
	}, func(_ context.Context, i int) error {
		commit, err := tasks[i].run(workCtx)
		commits[i] = commit
		return err
	})
	if err != nil { // the engine builds its tasks acyclic: a bug, reported as the run's error
		return dagRun{errs: []error{err}, ran: make([]bool, len(tasks))}
	}
	res.canceled = w.Canceled
	res.ran = make([]bool, len(tasks))
	for i, o := range w.Outcomes {
		res.ran[i] = o.Status == walk.Succeeded || o.Status == walk.Failed
	}
	return res
}

// planDeletes runs the deletes of list in the order the step generator
// gives them (stepgen.DeleteOrder): dependents first.
func (d *deployment) planDeletes(list []runstate.Doomed) []task {
	deps := stepgen.DeleteOrder(list)
	tasks := make([]task, len(list))
	for i, x := range list {
		tasks[i] = task{deps: deps[i], run: func(ctx context.Context) (func(), error) { return d.exec.Delete(ctx, x) }}
	}
	return tasks
}

// planRefresh reads every recorded custom resource back, in parallel.
func (d *deployment) planRefresh() []task {
	var tasks []task
	for _, r := range d.Old.Resources {
		if !r.Custom || runstate.IsProvider(r.Type) {
			continue
		}
		r := r
		tasks = append(tasks, task{run: func(ctx context.Context) (func(), error) { return d.exec.Refresh(ctx, r) }})
	}
	return tasks
}
