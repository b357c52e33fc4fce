package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
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
