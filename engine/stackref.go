package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
)

// StackReference reads the stack outputs of another project deployed on the
// same stack.
type StackReference struct {
	ctx     *Context
	project string

	once    sync.Once
	outputs resource.PropertyMap // nil: never deployed
	planned bool                 // outputs came from Options.References
	err     error
}

// stackRefs loads each referenced project's outputs once per operation.
type stackRefs struct {
	ctx     context.Context
	backend backend.Backend
	crypter resource.Crypter
	given   func(project string) (resource.PropertyMap, bool) // Options.References

	mu   sync.Mutex
	refs map[string]*StackReference
}

// newStackRefs returns the stack references of one operation.
func newStackRefs(ctx context.Context, opts *Options) *stackRefs {
	return &stackRefs{ctx: ctx, backend: opts.Backend, crypter: opts.Crypter, given: opts.References,
		refs: map[string]*StackReference{}}
}

// StackReference returns a reference to the outputs of project on this
// stack: those Options.References gives for it, or else those recorded in
// its snapshot. During preview its outputs are unknown when the project has
// never been deployed; during up that is an error naming the project.
func (c *Context) StackReference(project string) *StackReference {
	c.refs.mu.Lock()
	defer c.refs.mu.Unlock()
	if ref, ok := c.refs.refs[project]; ok {
		return ref
	}
	ref := &StackReference{ctx: c, project: project}
	c.refs.refs[project] = ref
	return ref
}

// Name returns the referenced project.
func (s *StackReference) Name() string { return s.project }

func (s *StackReference) load() {
	s.once.Do(func() {
		refs := s.ctx.refs
		if refs.given != nil {
			if outs, ok := refs.given(s.project); ok {
				s.outputs, s.planned = outs, true
				if s.outputs == nil {
					s.outputs = resource.PropertyMap{}
				}
				return
			}
		}
		if refs.backend == nil {
			s.err = fmt.Errorf("reading the outputs of project %s: no backend is configured", s.project)
			return
		}
		snap, err := refs.backend.Load(refs.ctx, s.project, s.ctx.stack, refs.crypter)
		if err != nil {
			s.err = fmt.Errorf("reading the outputs of project %s on stack %s: %w", s.project, s.ctx.stack, err)
			return
		}
		if snap == nil {
			return
		}
		s.outputs = resource.PropertyMap{}
		for _, r := range snap.Resources {
			if r.Type == resource.RootStackType && !r.Delete {
				s.outputs = r.Outputs
				if s.outputs == nil {
					s.outputs = resource.PropertyMap{}
				}
				break
			}
		}
	})
}

// Output returns the referenced project's stack output name, secret when the
// project recorded it as secret.
func (s *StackReference) Output(name string) Output {
	return newOutput(nil, func() (outcome, error) {
		s.load()
		if s.err != nil {
			return outcome{}, s.err
		}
		dry := s.ctx.dryRun
		if s.outputs == nil {
			if dry {
				return outcome{}, nil
			}
			return outcome{}, fmt.Errorf("project %s has no state on stack %s; deploy it first", s.project, s.ctx.stack)
		}
		v, ok := s.outputs[name]
		if !ok {
			if s.planned {
				// The plan of the project is complete: up will fail too.
				return outcome{}, fmt.Errorf("project %s does not export %q in this operation; export it from %s or stop reading it", s.project, name, s.project)
			}
			if dry {
				return outcome{}, nil
			}
			return outcome{}, fmt.Errorf("project %s has no output %q on stack %s; deploy it with that output first", s.project, name, s.ctx.stack)
		}
		plain, secret := unsecretDeep(v)
		if resource.ContainsComputed(plain) {
			return outcome{secret: secret}, nil
		}
		return outcome{value: plain, known: true, secret: secret}, nil
	})
}
