package stepgen

import (
	"sort"
	"strings"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
)

// Decision is the step a plugin's diff calls for.
type Decision struct {
	Op plan.Op
	// Changed are the changed top-level properties; Paths the changed
	// property paths (for the plan); Replaces those forcing a replacement.
	Changed, Paths, Replaces []string
	DeleteBeforeReplace      bool
}

// FromDiff reads a plugin's diff of a recorded resource (its inputs
// oldInputs, initErrors when its initialization failed) against its checked
// inputs, as Pulumi reads one: an Unknown diff is the engine's own
// comparison of the old and new inputs; a replace kind in the detailed diff
// forces a replacement as Replaces does; a change naming no property is an
// update listing none; a resource with init errors and no change gets an
// empty update (a retry). optionDBR is the program's deleteBeforeReplace,
// which overrides the plugin's wish when optionSet.
func FromDiff(oldInputs, checked resource.PropertyMap, initErrors bool, diff resource.DiffResponse, optionDBR, optionSet bool) Decision {
	var dec Decision
	changed := diff.Changed
	if diff.Unknown {
		changed = resource.DiffKeys(oldInputs, checked, nil)
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
		dec.Op = plan.OpSame
		if initErrors {
			dec.Op = plan.OpUpdate // retry the initialization
		}
		return dec
	case len(diff.Replaces) > 0:
		dec.Op = plan.OpReplace
		dec.Replaces = plan.ChangedPaths(oldInputs, checked, diff.Replaces)
	case len(replacePaths) > 0:
		dec.Op = plan.OpReplace
		dec.Replaces = replacePaths
	default:
		dec.Op = plan.OpUpdate
	}
	if dec.Op == plan.OpReplace {
		dec.DeleteBeforeReplace = diff.DeleteBeforeReplace || optionDBR
		if optionSet { // the program's option overrides the plugin's wish
			dec.DeleteBeforeReplace = optionDBR
		}
	}
	dec.Changed = changed
	if len(paths) > 0 {
		dec.Paths = paths
	} else {
		dec.Paths = plan.ChangedPaths(oldInputs, checked, changed)
	}
	return dec
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

// ReplaceOnChanges turns an update into a replacement when a changed
// property path is one of paths (the program's replaceOnChanges) or lies
// under one ("*" names every property), as Pulumi does; dbr is the
// program's deleteBeforeReplace.
func ReplaceOnChanges(dec *Decision, paths []string, dbr bool) {
	if dec.Op != plan.OpUpdate || len(paths) == 0 {
		return
	}
	var hits []string
	for _, changed := range dec.Paths {
		for _, roc := range paths {
			if roc == "*" || changed == roc || strings.HasPrefix(changed, roc+".") || strings.HasPrefix(changed, roc+"[") {
				hits = append(hits, changed)
				break
			}
		}
	}
	if len(hits) > 0 {
		dec.Op, dec.Replaces, dec.DeleteBeforeReplace = plan.OpReplace, hits, dbr
	}
}
