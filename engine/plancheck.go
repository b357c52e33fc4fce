package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/stepgen"
)

// stateDigester is a backend that can tell whether the stored state of a
// (project, stack) changed: equal digests, same state.
type stateDigester interface {
	StateDigest(ctx context.Context, project, stack string) (string, error)
}

// stateDigest returns the digest of the stored state; ok is false when the
// backend cannot make one.
func (d *deployment) stateDigest(ctx context.Context) (digest string, ok bool, err error) {
	sd, ok := d.opts.Backend.(stateDigester)
	if !ok {
		return "", false, nil
	}
	digest, err = sd.StateDigest(ctx, d.opts.Project, d.opts.Stack)
	if err != nil {
		return "", true, fmt.Errorf("reading the digest of the state of stack %s: %w", d.opts.Stack, err)
	}
	return digest, true, nil
}

// checkPlanBase refuses the plan of an Up when it was made for another
// (project, stack) or from another stored state. It runs under the lock,
// before anything is read back or recovered.
func (d *deployment) checkPlanBase(ctx context.Context) error {
	p := d.opts.Plan
	if p == nil || d.Kind != kindUpdate {
		return nil
	}
	if p.Project != d.opts.Project || p.Stack != d.opts.Stack {
		return &PlanMismatchError{Project: d.opts.Project, Reason: fmt.Sprintf("the plan is for project %s on stack %s, not for stack %s", p.Project, p.Stack, d.opts.Stack)}
	}
	digest, ok, err := d.stateDigest(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the backend cannot tell whether the state changed since the plan was made, so it cannot execute a plan; run up without a plan")
	}
	if digest != p.Base {
		return &PlanMismatchError{Project: d.opts.Project, Reason: fmt.Sprintf("the stored state of stack %s is not the one the plan was made from", d.opts.Stack)}
	}
	return nil
}

// checkPlanCoverage refuses a plan whose steps are not the ones the
// program (which registers declared) and the state call for
// (plan.CheckCoverage): before any step when the source knows what it
// registers, else before the deletes.
func (d *deployment) checkPlanCoverage(declared []resource.URN) error {
	p := d.opts.Plan
	if p == nil || d.Kind != kindUpdate {
		return nil
	}
	isDeclared := make(map[resource.URN]bool, len(declared))
	for _, urn := range declared {
		isDeclared[urn] = true
	}
	var deletes []Step
	for _, r := range d.Old.Resources {
		switch {
		case runstate.IsProvider(r.Type):
		case r.Delete || !isDeclared[r.URN]:
			deletes = append(deletes, Step{Op: stepgen.DeleteOp(r, r.Delete), URN: r.URN})
		}
	}
	return p.CheckCoverage(d.opts.Project, declared, deletes)
}
