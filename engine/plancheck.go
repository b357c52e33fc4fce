package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
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
	if p == nil || d.kind != kindUpdate {
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

// planIndex is a plan as Up checks it: the planned steps of the declared
// resources by URN.
type planIndex struct {
	project string
	byURN   map[resource.URN]*Step
}

func newPlanIndex(p *Plan) *planIndex {
	if p == nil {
		return nil
	}
	x := &planIndex{project: p.Project, byURN: make(map[resource.URN]*Step, len(p.Steps))}
	for i := range p.Steps {
		if s := &p.Steps[i]; !isDelete(s.Op) {
			x.byURN[s.URN] = s
		}
	}
	return x
}

// check compares a decided step with its planned step. The op must be the
// planned op, with one exception: a planned update or replace whose planned
// inputs held unknown values may turn out same (the unknowns resolved to
// the recorded values; less is done than was approved, never more). Every
// planned input that was known must equal the actual input.
func (x *planIndex) check(s *Step) error {
	if x == nil {
		return nil
	}
	p := x.byURN[s.URN]
	if p == nil {
		return stepMismatch(x.project, s.URN, "", s.Op, nil)
	}
	paths := plannedPaths(normalized(p.NewInputs), normalized(s.NewInputs))
	sameOK := s.Op == OpSame && (p.Op == OpUpdate || p.Op == OpReplace) && hasComputed(p.NewInputs)
	if (p.Op != s.Op && !sameOK) || len(paths) > 0 {
		return stepMismatch(x.project, s.URN, p.Op, s.Op, paths)
	}
	if p.Op == OpReplace && s.Op == OpReplace && p.DeleteBeforeReplace != s.DeleteBeforeReplace {
		m := stepMismatch(x.project, s.URN, p.Op, s.Op, nil)
		m.Reason = fmt.Sprintf("%s: the planned replacement deletes before it creates: %v, the step now: %v", s.URN, p.DeleteBeforeReplace, s.DeleteBeforeReplace)
		return m
	}
	return nil
}

// normalized returns m in normalized form (numbers as float64), or m when
// it has none.
func normalized(m resource.PropertyMap) resource.PropertyMap {
	n, err := resource.Normalize(map[string]any(m))
	if err != nil {
		return m
	}
	return n.(map[string]any)
}

// checkPlanCoverage refuses, before any step runs, a plan whose steps are
// not the ones the program and the state call for: a declared resource
// without a planned step, a planned resource the program no longer
// declares, or deletes other than the planned ones.
func (d *deployment) checkPlanCoverage(c *Context) error {
	p := d.opts.Plan
	if p == nil || d.kind != kindUpdate {
		return nil
	}
	var extra, missing []string
	planned := make(map[string]int, len(p.Steps))
	for _, s := range p.Steps {
		planned[coverageKey(s.Op, s.URN)]++
	}
	take := func(op Op, urn resource.URN) {
		k := coverageKey(op, urn)
		if planned[k] == 0 {
			extra = append(extra, coverageName(k))
			return
		}
		planned[k]--
	}
	for _, r := range c.resources {
		take(OpSame, r.urn) // any op: declared resources share one key
	}
	for _, r := range d.old.Resources {
		switch {
		case isProvider(r.Type):
		case r.Delete:
			take(OpDeleteReplaced, r.URN)
		case c.byURN[r.URN] == nil:
			take(OpDelete, r.URN)
		}
	}
	for k, n := range planned {
		if n > 0 {
			missing = append(missing, coverageName(k))
		}
	}
	if len(extra)+len(missing) == 0 {
		return nil
	}
	sort.Strings(extra)
	sort.Strings(missing)
	reason := "the steps differ from the plan"
	if len(extra) > 0 {
		reason += "; not in the plan: " + strings.Join(extra, ", ")
	}
	if len(missing) > 0 {
		reason += "; planned but not called for: " + strings.Join(missing, ", ")
	}
	return &PlanMismatchError{Project: d.opts.Project, Reason: reason}
}

// coverageName spells a coverage key for an error: the URN, and the op of
// a delete.
func coverageName(k string) string {
	urn, what, _ := strings.Cut(k, "\x00")
	if what == "(declared)" {
		return urn
	}
	return urn + " " + what
}

// coverageKey identifies a planned step for checkPlanCoverage: deletes by
// op and URN, every other step by URN.
func coverageKey(op Op, urn resource.URN) string {
	if isDelete(op) {
		return string(urn) + "\x00(" + string(op) + ")"
	}
	return string(urn) + "\x00(declared)"
}
