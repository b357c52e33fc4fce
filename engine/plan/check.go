package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// Index is a plan as Up checks it: the planned steps of the declared
// resources by URN. A nil *Index is no plan: every step passes.
type Index struct {
	project string
	byURN   map[resource.URN]*Step
	outputs resource.PropertyMap
}

// NewIndex indexes p (nil for nil).
func NewIndex(p *Plan) *Index {
	if p == nil {
		return nil
	}
	x := &Index{project: p.Project, byURN: make(map[resource.URN]*Step, len(p.Steps)), outputs: p.Outputs}
	for i := range p.Steps {
		if s := &p.Steps[i]; !isDelete(s.Op) {
			x.byURN[s.URN] = s
		}
	}
	return x
}

// Check compares a decided step with its planned step. The op must be the
// planned op, with one exception: a planned update or replace may turn out
// same when its planned inputs held unknown values (they resolved to the
// recorded values) or when it was planned while its provider's
// configuration was unknown (Unchecked: the plugin could not diff, as
// after a cluster is replaced); less is done than was approved, never
// more. Every planned input that was known must equal the actual input.
func (x *Index) Check(s *Step) error {
	if x == nil {
		return nil
	}
	p := x.byURN[s.URN]
	switch {
	case p == nil && s.Op == OpRead:
		return nil // a read the preview could not make (its ID not known then) changes nothing outside the state
	case p == nil:
		return stepMismatch(x.project, s.URN, "", s.Op, nil)
	}
	paths := plannedPaths(normalized(p.NewInputs), normalized(s.NewInputs), p.Unchecked)
	sameOK := s.Op == OpSame && (p.Op == OpUpdate || p.Op == OpReplace) && (p.Unchecked || hasComputed(p.NewInputs))
	if (p.Op != s.Op && !sameOK) || len(paths) > 0 {
		return stepMismatch(x.project, s.URN, p.Op, s.Op, paths)
	}
	if p.Protect != s.Protect || p.RetainOnDelete != s.RetainOnDelete {
		m := stepMismatch(x.project, s.URN, p.Op, s.Op, nil)
		m.Reason = fmt.Sprintf("%s: the planned step has protect %v and retainOnDelete %v, the step now %v and %v", s.URN, p.Protect, p.RetainOnDelete, s.Protect, s.RetainOnDelete)
		return m
	}
	if p.Op == OpReplace && s.Op == OpReplace && p.DeleteBeforeReplace != s.DeleteBeforeReplace {
		m := stepMismatch(x.project, s.URN, p.Op, s.Op, nil)
		m.Reason = fmt.Sprintf("%s: the planned replacement deletes before it creates: %v, the step now: %v", s.URN, p.DeleteBeforeReplace, s.DeleteBeforeReplace)
		return m
	}
	return nil
}

// Has reports whether the plan has a step for urn (false: no plan).
func (x *Index) Has(urn resource.URN) bool { return x != nil && x.byURN[urn] != nil }

// Seed returns the random seed the plan gave the resource's step (nil: no
// plan, no step, or a step without one).
func (x *Index) Seed(urn resource.URN) []byte {
	if x == nil || x.byURN[urn] == nil {
		return nil
	}
	return x.byURN[urn].RandomSeed
}

// CheckOutputs compares the stack outputs a program exported with the
// planned ones: the same names, and every planned value that was known
// equal to the actual one (an unknown accepts anything). The mark
// @isPulumiResource, which @pulumi/pulumi puts on an exported resource in
// a preview only, is not compared.
func (x *Index) CheckOutputs(actual resource.PropertyMap) error {
	if x == nil {
		return nil
	}
	if paths := plannedPaths(resource.PropertyMap(withoutResourceMarks(map[string]any(normalized(x.outputs))).(map[string]any)), normalized(actual), false); len(paths) > 0 {
		return &MismatchError{Project: x.project, Reason: "the stack outputs differ from the planned ones (differing outputs: " + strings.Join(paths, ", ") + ")"}
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

// CheckCoverage refuses, before any step runs, a plan whose steps are not
// the ones the program and the state call for: a declared resource without
// a planned step, a planned resource the program no longer declares, or
// deletes other than the planned ones. declared are the URNs the program
// declares, deletes the deletes the state calls for (their Op and URN).
func (p *Plan) CheckCoverage(project string, declared []resource.URN, deletes []Step) error {
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
	for _, urn := range declared {
		take(OpSame, urn) // any op: declared resources share one key
	}
	for _, s := range deletes {
		take(s.Op, s.URN)
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
	return &MismatchError{Project: project, Reason: reason}
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

// coverageKey identifies a planned step for CheckCoverage: deletes by op
// and URN, every other step by URN.
func coverageKey(op Op, urn resource.URN) string {
	if isDelete(op) {
		return string(urn) + "\x00(" + string(op) + ")"
	}
	return string(urn) + "\x00(declared)"
}

// resourceMark is the key @pulumi/pulumi adds, in a preview only, to an
// exported resource's object, for the display.
const resourceMark = "@isPulumiResource"

// withoutResourceMarks returns v without the resource marks of the
// objects in it.
func withoutResourceMarks(v any) any {
	return resource.Map(v, func(x any) (any, bool) {
		o, ok := x.(map[string]any)
		if !ok || o[resourceMark] == nil {
			return nil, false
		}
		c := make(map[string]any, len(o))
		for k, e := range o {
			if k != resourceMark {
				c[k] = withoutResourceMarks(e)
			}
		}
		return c, true
	})
}
