package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// stackOutputs returns the program.Env.StackOutputs of one operation: the
// outputs Options.References gives for a project, or else those recorded
// in its snapshot.
func stackOutputs(ctx context.Context, opts *Options) func(project string) (resource.PropertyMap, bool, error) {
	return func(project string) (resource.PropertyMap, bool, error) {
		if opts.References != nil {
			if outs, ok := opts.References(project); ok {
				if outs == nil {
					outs = resource.PropertyMap{}
				}
				return outs, true, nil
			}
		}
		if opts.Backend == nil {
			return nil, false, fmt.Errorf("reading the outputs of project %s: no backend is configured", project)
		}
		snap, err := opts.Backend.Load(ctx, project, opts.Stack, opts.Crypter)
		if err != nil {
			return nil, false, fmt.Errorf("reading the outputs of project %s on stack %s: %w", project, opts.Stack, err)
		}
		if snap == nil {
			return nil, false, nil
		}
		for _, r := range snap.Resources {
			if r.Type == resource.RootStackType && !r.Delete {
				if r.Outputs == nil {
					return resource.PropertyMap{}, false, nil
				}
				return r.Outputs, false, nil
			}
		}
		return resource.PropertyMap{}, false, nil
	}
}

// unknownsAbsent says whether the program's SDK reads a stack output left
// out of a preview's stack reference as unknown (source.UnknownsAbsent).
func (d *deployment) unknownsAbsent() bool {
	u, ok := d.opts.Hosted.(source.UnknownsAbsent)
	return ok && u.UnknownsAbsent()
}

// withoutUnknownOutputs returns a stack reference's read outputs without
// the stack outputs that hold a value not known yet: a copy, the
// recorded outputs left as they are.
func withoutUnknownOutputs(read resource.PropertyMap) resource.PropertyMap {
	outs, secret := read["outputs"], false
	if s, ok := outs.(resource.Secret); ok {
		outs, secret = s.Element, true
	}
	m, ok := outs.(map[string]any)
	if !ok || !resource.ContainsComputed(m) {
		return read
	}
	known := make(map[string]any, len(m))
	for k, v := range m {
		if !resource.ContainsComputed(v) {
			known[k] = v
		}
	}
	out := make(resource.PropertyMap, len(read))
	for k, v := range read {
		out[k] = v
	}
	out["outputs"] = known
	if secret {
		out["outputs"] = resource.Secret{Element: known}
	}
	return out
}
