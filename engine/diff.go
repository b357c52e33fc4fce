package engine

import (
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// decideFromDiff sets the op, changed keys and replacement reasons of cs
// from a plugin's diff, as Pulumi reads one: an Unknown diff is the
// engine's own comparison of the old and new inputs; a replace kind in the
// detailed diff forces a replacement as Replaces does; a change naming no
// property is an update listing none; a resource with
// init errors and no change gets an empty update (a retry).
func decideFromDiff(cs *customStep, old *state.Resource, diff resource.DiffResponse, optionDBR, optionSet bool) {
	checked := cs.rec.Inputs
	changed := diff.Changed
	if diff.Unknown {
		changed = resource.DiffKeys(old.Inputs, checked, nil)
	}
	var paths, replacePaths []string
	for p, pd := range diff.Detailed {
		paths = append(paths, p)
		if pd.Kind.Replaces() {
			replacePaths = append(replacePaths, p)
		}
	}
	sort.Strings(paths)
	sort.Strings(replacePaths)
	if len(changed) == 0 {
		changed = topLevel(append(append([]string(nil), paths...), diff.Replaces...))
	}
	switch {
	case len(changed) == 0 && !diff.ChangedUnnamed:
		cs.step.Op = OpSame
		if len(old.InitErrors) > 0 {
			cs.step.Op = OpUpdate // retry the initialization
		}
		return
	case len(diff.Replaces) > 0:
		cs.step.Op = OpReplace
		cs.step.Replaces = plan.ChangedPaths(old.Inputs, checked, diff.Replaces)
	case len(replacePaths) > 0:
		cs.step.Op = OpReplace
		cs.step.Replaces = replacePaths
	default:
		cs.step.Op = OpUpdate
	}
	if cs.step.Op == OpReplace {
		cs.step.DeleteBeforeReplace = diff.DeleteBeforeReplace || optionDBR
		if optionSet { // the program's option overrides the plugin's wish
			cs.step.DeleteBeforeReplace = optionDBR
		}
	}
	cs.keys = changed
	if len(paths) > 0 {
		cs.step.Keys = paths
	} else {
		cs.step.Keys = plan.ChangedPaths(old.Inputs, checked, changed)
	}
}

// topLevel returns, sorted and without repeats, the top-level keys of
// property paths (a path that does not parse is kept whole).
func topLevel(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	var out []string
	for _, s := range paths {
		k := s
		if p, err := resource.ParsePropertyPath(s); err == nil {
			if key, ok := p[0].(string); ok {
				k = key
			}
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// replaceOnChanges turns an update into a replacement when a changed
// property path is one the program's replaceOnChanges names (or lies under
// one; "*" names every property), as Pulumi does.
func replaceOnChanges(cs *customStep, r *source.Registration) {
	if cs.step.Op != OpUpdate || len(r.ReplaceOnChanges) == 0 {
		return
	}
	var hits []string
	for _, changed := range cs.step.Keys {
		for _, roc := range r.ReplaceOnChanges {
			if roc == "*" || changed == roc || strings.HasPrefix(changed, roc+".") || strings.HasPrefix(changed, roc+"[") {
				hits = append(hits, changed)
				break
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	cs.step.Op, cs.step.Replaces = OpReplace, hits
	cs.step.DeleteBeforeReplace = r.DeleteBeforeReplace
}
