package orchestrate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/backend"
)

// stateDigester is a backend that can tell whether the stored state of a
// (project, stack) changed since a plan was made.
type stateDigester interface {
	StateDigest(ctx context.Context, project, stack string) (string, error)
}

// lockReader is a backend that can name the holder of a project's lock.
type lockReader interface {
	LockHolder(ctx context.Context, project, stack string) (*backend.LockInfo, error)
}

// PlanRefusedError is an up refused before any project started: its plans
// do not cover the projects of the run, or the stored state of a planned
// project changed since the plan was made. Nothing was changed.
type PlanRefusedError struct {
	Stack string
	// Reasons says what differs, one sentence per project.
	Reasons []string
}

func (e *PlanRefusedError) Error() string {
	return fmt.Sprintf("the plan cannot be executed on stack %s, so nothing was changed: %s", e.Stack, strings.Join(e.Reasons, "; "))
}

// checkPlans refuses a planned up before any project starts, under the
// stack lock (so that no other operation runs between the check and the
// walk): every project of the run must have a plan, every plan a project
// of the run, and each planned project's stored state must be the one its
// plan was made from. Each project's engine checks its state again under
// its own lock, and each step as it decides it.
func (o *run) checkPlans(ctx context.Context) error {
	if o.req.Plans == nil {
		return nil
	}
	if o.req.Operation != Up {
		return fmt.Errorf("%s cannot execute a plan: only up does", o.req.Operation)
	}
	var reasons []string
	covers := strings.Join(o.plannedNames(), ", ")
	if covers == "" {
		covers = "no project"
	}
	for _, p := range o.req.Projects {
		if o.include[p.Name] && o.req.Plans[p.Name] == nil {
			reasons = append(reasons, fmt.Sprintf("project %s has no plan (the plan covers %s)", p.Name, covers))
		}
	}
	for _, name := range o.plannedNames() {
		if !o.include[name] {
			reasons = append(reasons, fmt.Sprintf("the plan has project %s, which this run does not include", name))
		}
	}
	if len(reasons) == 0 {
		var err error
		if reasons, err = o.staleBases(ctx); err != nil {
			return err
		}
	}
	if len(reasons) > 0 {
		return &PlanRefusedError{Stack: o.req.Stack, Reasons: reasons}
	}
	return o.plannedUnlocked(ctx)
}

// plannedUnlocked refuses, before any project starts, a planned up of which
// a project's lock is held by a live process (one that changes one project
// only): the projects before it would run, changing their state,
// and the plan would be spent on a run that stops there.
func (o *run) plannedUnlocked(ctx context.Context) error {
	lr, ok := o.req.Backend.(lockReader)
	if !ok {
		return nil
	}
	for _, name := range o.plannedNames() {
		h, err := lr.LockHolder(ctx, name, o.req.Stack)
		if err != nil {
			return fmt.Errorf("up: reading the lock of project %s: %w", name, err)
		}
		if h != nil && !h.Stale() { // a dead holder's lock is taken over
			return fmt.Errorf("up: nothing was changed: %w", &backend.LockedError{Project: name, Stack: o.req.Stack, Holder: *h})
		}
	}
	return nil
}

// staleBases compares the stored state of every planned project with the
// state its plan was made from, and says which differ.
func (o *run) staleBases(ctx context.Context) ([]string, error) {
	sd, ok := o.req.Backend.(stateDigester)
	if !ok {
		return nil, fmt.Errorf("up: the backend cannot tell whether the state changed since the plan was made, so it cannot execute a plan; run up without a plan")
	}
	var reasons, stale []string
	for _, name := range o.plannedNames() {
		p := o.req.Plans[name]
		if p.Project != name || p.Stack != o.req.Stack {
			reasons = append(reasons, fmt.Sprintf("the plan given for project %s is the plan of project %s on stack %s", name, p.Project, p.Stack))
			continue
		}
		digest, err := sd.StateDigest(ctx, name, o.req.Stack)
		if err != nil {
			return nil, fmt.Errorf("up: reading the state of project %s to compare it with the plan: %w", name, err)
		}
		if digest != p.Base {
			stale = append(stale, name)
		}
	}
	if len(stale) > 0 {
		reasons = append(reasons, fmt.Sprintf("the state of %s changed since the plan was made (an operation ran on stack %s since, or the plan was executed already)", plural(stale), o.req.Stack))
	}
	return reasons, nil
}

// plannedNames returns the projects that have a plan, in declaration
// order, then any the graph does not know, sorted.
func (o *run) plannedNames() []string {
	var names, unknown []string
	for _, p := range o.req.Projects {
		if o.req.Plans[p.Name] != nil {
			names = append(names, p.Name)
		}
	}
	for name, p := range o.req.Plans {
		if _, ok := o.byName[name]; !ok && p != nil {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	return append(names, unknown...)
}
