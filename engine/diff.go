package engine

import (
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/stepgen"
)

// decideFromDiff sets the op, changed keys and replacement reasons of cs
// from a plugin's diff of the recorded resource old (stepgen.FromDiff).
func decideFromDiff(cs *customStep, old *state.Resource, diff resource.DiffResponse, optionDBR, optionSet bool) {
	cs.apply(stepgen.FromDiff(old.Inputs, cs.rec.Inputs, len(old.InitErrors) > 0, diff, optionDBR, optionSet))
}

// replaceOnChanges applies the program's replaceOnChanges to cs
// (stepgen.ReplaceOnChanges).
func replaceOnChanges(cs *customStep, r *source.Registration) {
	dec := stepgen.Decision{Op: cs.step.Op, Changed: cs.keys, Paths: cs.step.Keys, Replaces: cs.step.Replaces, DeleteBeforeReplace: cs.step.DeleteBeforeReplace}
	stepgen.ReplaceOnChanges(&dec, r.ReplaceOnChanges, r.DeleteBeforeReplace)
	cs.apply(dec)
}

// apply records a decision in the step.
func (cs *customStep) apply(dec stepgen.Decision) {
	cs.step.Op, cs.step.Replaces, cs.step.DeleteBeforeReplace = dec.Op, dec.Replaces, dec.DeleteBeforeReplace
	cs.keys, cs.step.Keys = dec.Changed, dec.Paths
}
