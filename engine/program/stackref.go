package program

import (
	"fmt"
	"sync"

	"github.com/runnerhq/runner/engine/resource"
)

// StackReference reads the stack outputs of another project deployed on the
// same stack.
type StackReference struct {
	ctx     *Context
	project string

	once    sync.Once
	outputs resource.PropertyMap // nil: never deployed
	planned bool                 // outputs are those of the project's plan
	err     error
}

// StackReference returns a reference to the outputs of project on this
// stack, as the engine gives them: those of the project's plan in this
// operation, or else those recorded in its snapshot. During preview its
// outputs are unknown when the project has never been deployed; during up
// that is an error naming the project.
func (c *Context) StackReference(project string) *StackReference {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ref, ok := c.refs[project]; ok {
		return ref
	}
	ref := &StackReference{ctx: c, project: project}
	c.refs[project] = ref
	return ref
}

// Name returns the referenced project.
func (s *StackReference) Name() string { return s.project }

// load reads the referenced outputs once, through Env.StackOutputs.
func (s *StackReference) load() {
	s.once.Do(func() {
		if s.ctx.stackOutputs == nil {
			s.err = fmt.Errorf("reading the outputs of project %s: the engine gave no way to read them", s.project)
			return
		}
		s.outputs, s.planned, s.err = s.ctx.stackOutputs(s.project)
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
		plain, secret := resource.UnsecretDeep(v)
		if resource.ContainsComputed(plain) {
			return outcome{secret: secret}, nil
		}
		return outcome{value: plain, known: true, secret: secret}, nil
	})
}
