// Package plan holds the values of a plan and what is done with them
// without running anything: the step operations (Op), a step (Step) and a
// project's plan (Plan), the property paths a step changes, the plan file
// encoding (Marshal, Unmarshal) and the check that a step being executed
// is the planned one (Index, CheckCoverage, MismatchError).
//
// It may import the standard library and engine/resource and engine/state
// only: the engine decides steps and executes plans on top of it.
package plan

import (
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// Op is a step's operation, spelled as Pulumi spells it.
type Op string

// The step operations.
const (
	OpSame              Op = "same"
	OpCreate            Op = "create"
	OpUpdate            Op = "update"
	OpReplace           Op = "replace" // a replacement as a whole (plan and counts)
	OpCreateReplacement Op = "create-replacement"
	OpDeleteReplaced    Op = "delete-replaced"
	OpDelete            Op = "delete"
	OpRefresh           Op = "refresh"
	OpImport            Op = "import" // adopting an existing resource (program.Import)
	// A read resource (a program's get of an existing resource) is
	// recorded external: the stack reads it and never changes it.
	OpRead            Op = "read"             // reading it into the state
	OpReadReplacement Op = "read-replacement" // reading it where the stack managed a resource of its URN
	OpReadDiscard     Op = "read-discard"     // dropping it from the state, nothing deleted
	OpDiscardReplaced Op = "discard-replaced" // dropping it once a managed resource took its URN
)

// Step is one planned (or executed) step: what happens to one resource and
// why. A replacement is one step with Op OpReplace.
type Step struct {
	Op   Op
	URN  resource.URN
	Type string
	// Keys are the property paths that change, sorted ("port", "tags.env",
	// "items[0]"); for a create, the declared top-level properties.
	Keys []string
	// Replaces are the property paths that force a replacement (the
	// replacement's reason).
	Replaces []string
	// DeleteBeforeReplace says the old resource is deleted before its
	// replacement is created.
	DeleteBeforeReplace bool
	// Protect and RetainOnDelete are the resource's options as the step
	// records them (a program that changes them no longer matches its plan).
	Protect, RetainOnDelete bool
	// Deps are the resources the step waits for.
	Deps []resource.URN
	// OldInputs are the recorded inputs (nil for a create); NewInputs the
	// inputs the step makes (nil for a delete), resource.Computed where a
	// value is not known before the steps it depends on run.
	OldInputs, NewInputs resource.PropertyMap
	// RandomSeed is the 32 random bytes the resource's Check got (nil for
	// steps without a Check): up reuses a plan's seeds, so that what a
	// plugin derives from them (auto-names) is what the preview showed.
	RandomSeed []byte
	// Unchecked says the plugin could not check NewInputs: its provider's
	// configuration was not known in the preview (a cluster not created
	// yet), so they are the program's inputs, without the defaults the
	// plugin's Check adds (apiVersion, auto-names). Up then accepts
	// properties the plan does not have; the ones it has must match. Its
	// update (the plugin could not diff) may turn out same.
	Unchecked bool
}

// Plan is what a preview decided: every step of one (project, stack), in
// dependency order, and the state it starts from. Up executes a plan given
// in the engine's Options.Plan only if the state and every step are still as planned:
// the stored state's digest is Base, the program declares exactly the
// planned resources and the state calls for exactly the planned deletes,
// each step has its planned op, and every input the plan knew has its
// planned value (an unknown planned value accepts any). One relaxation: an
// update or replace planned with unknown inputs, or while its provider's
// configuration was unknown, may turn out same (less is done than was
// approved, never more).
type Plan struct {
	Project, Stack string
	// Base is the digest of the stored state the plan was made from ("" for
	// a stack the project was never deployed on).
	Base string
	// Steps lists one step per declared resource (same included) and per
	// delete, in dependency order: deletes come last, dependents first.
	Steps []Step
	// Outputs are the planned stack outputs: resource.Computed where unknown,
	// resource.Secret kept.
	Outputs resource.PropertyMap
}

// MismatchError says Up refused a plan: the state changed since the
// plan was made, or a step would differ from the planned one. Nothing of
// the refused step was done.
type MismatchError struct {
	// Project is the project whose plan was refused (the engine's error
	// wrapping the MismatchError names it).
	Project string
	// Reason says what differs (resource, planned and actual operation,
	// differing property paths; never values).
	Reason string
}

func (e *MismatchError) Error() string {
	return e.Reason + "; the state or the program changed since the plan was made: run preview again to make a new plan"
}

// stepMismatch builds the error of a step that differs from its plan.
func stepMismatch(project string, urn resource.URN, planned, actual Op, paths []string) *MismatchError {
	reason := fmt.Sprintf("%s: the plan says %s, the step now is %s", urn, planned, actual)
	switch {
	case planned == actual:
		reason = fmt.Sprintf("%s: the planned %s now has other inputs", urn, planned)
	case planned == "":
		reason = fmt.Sprintf("%s: the step (%s) is not in the plan", urn, actual)
	}
	if len(paths) > 0 {
		reason += " (differing properties: " + strings.Join(paths, ", ") + ")"
	}
	return &MismatchError{Project: project, Reason: reason}
}

// isDelete reports whether op removes a resource from the state.
func isDelete(op Op) bool {
	return op == OpDelete || op == OpDeleteReplaced || op == OpReadDiscard || op == OpDiscardReplaced
}

// hasComputed reports whether any value of m is unknown.
func hasComputed(m resource.PropertyMap) bool {
	for _, v := range m {
		if resource.ContainsComputed(v) {
			return true
		}
	}
	return false
}
