package plugintest

import (
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// CopySnapshot returns a deep copy of snap (nil for nil).
func CopySnapshot(snap *state.Snapshot) *state.Snapshot {
	if snap == nil {
		return nil
	}
	out := *snap
	out.Resources = make([]*state.Resource, len(snap.Resources))
	for i, r := range snap.Resources {
		out.Resources[i] = copyResource(r)
	}
	out.PendingOperations = make([]state.PendingOperation, len(snap.PendingOperations))
	for i, p := range snap.PendingOperations {
		out.PendingOperations[i] = state.PendingOperation{Resource: copyResource(p.Resource), Type: p.Type}
	}
	return &out
}

func copyResource(r *state.Resource) *state.Resource {
	if r == nil {
		return nil
	}
	c := *r
	c.Inputs = resource.DeepCopy(map[string]any(r.Inputs)).(map[string]any)
	c.Outputs = resource.DeepCopy(map[string]any(r.Outputs)).(map[string]any)
	c.Dependencies = append([]resource.URN(nil), r.Dependencies...)
	return &c
}

// hasSecret reports whether v holds a resource.Secret.
func hasSecret(v any) bool {
	switch x := v.(type) {
	case resource.Secret:
		return true
	case map[string]any:
		for _, e := range x {
			if hasSecret(e) {
				return true
			}
		}
	case resource.PropertyMap:
		return hasSecret(map[string]any(x))
	case []any:
		for _, e := range x {
			if hasSecret(e) {
				return true
			}
		}
	}
	return false
}
