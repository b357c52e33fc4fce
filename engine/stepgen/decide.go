package stepgen

import (
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// decideFromDiff sets the op, changed keys and replacement reasons of cs
// from a plugin's diff of the recorded resource old (FromDiff).
func decideFromDiff(cs *runstate.CustomStep, old *state.Resource, diff resource.DiffResponse, optionDBR, optionSet bool) {
	apply(cs, FromDiff(old.Inputs, cs.Rec.Inputs, len(old.InitErrors) > 0, diff, optionDBR, optionSet))
}

// replaceOnChanges applies the program's replaceOnChanges to cs
// (ReplaceOnChanges).
func replaceOnChanges(cs *runstate.CustomStep, r *source.Registration) {
	dec := Decision{Op: cs.Step.Op, Changed: cs.Keys, Paths: cs.Step.Keys, Replaces: cs.Step.Replaces, DeleteBeforeReplace: cs.Step.DeleteBeforeReplace}
	ReplaceOnChanges(&dec, r.ReplaceOnChanges, r.DeleteBeforeReplace)
	apply(cs, dec)
}

// apply records a decision in the step.
func apply(cs *runstate.CustomStep, dec Decision) {
	cs.Step.Op, cs.Step.Replaces, cs.Step.DeleteBeforeReplace = dec.Op, dec.Replaces, dec.DeleteBeforeReplace
	cs.Keys, cs.Step.Keys = dec.Changed, dec.Paths
}
