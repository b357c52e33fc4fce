package engine

import "context"

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

type taskDone struct {
	i      int
	commit func()
	err    error
}

// runDAG runs tasks in dependency order with at most parallel at once. The
// first failure or the end of ctx stops new tasks from starting; tasks in
// flight finish (their plugin calls see a context that is not canceled).
// Work per task is proportional to its own edges only.
func runDAG(ctx context.Context, tasks []task, parallel int) dagRun {
	if parallel < 1 {
		parallel = 1
	}
	pending := make([]int32, len(tasks))
	dependents := make([][]int, len(tasks))
	var ready []int
	for i, t := range tasks {
		pending[i] = int32(len(t.deps))
		for _, d := range t.deps {
			dependents[d] = append(dependents[d], i)
		}
		if len(t.deps) == 0 {
			ready = append(ready, i)
		}
	}
	res := dagRun{ran: make([]bool, len(tasks))}
	workCtx := context.WithoutCancel(ctx)
	done := make(chan taskDone, parallel)
	running, stop := 0, false
	for {
		if !stop && ctx.Err() != nil {
			stop, res.canceled = true, true
		}
		for !stop && running < parallel && len(ready) > 0 {
			i := ready[0]
			ready = ready[1:]
			res.ran[i] = true
			running++
			go func(i int) {
				commit, err := tasks[i].run(workCtx)
				done <- taskDone{i: i, commit: commit, err: err}
			}(i)
		}
		if running == 0 {
			return res
		}
		var d taskDone
		select {
		case d = <-done:
		case <-ctx.Done():
			if !stop {
				stop, res.canceled = true, true
			}
			d = <-done
		}
		running--
		if d.commit != nil {
			d.commit()
		}
		if d.err != nil {
			res.errs = append(res.errs, d.err)
			stop = true
			continue
		}
		for _, j := range dependents[d.i] {
			pending[j]--
			if pending[j] == 0 {
				ready = append(ready, j)
			}
		}
	}
}
