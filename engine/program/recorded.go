package program

import "github.com/runnerhq/runner/engine/resource"

// Recorded returns the outputs that the stack's state records for the
// resource of type typ named name, declared at the top level of this
// program (no parent), and whether the state has it: the state as found
// once the operations an earlier run left pending were resolved (a create
// cut short and found again counts). A program whose declarations depend
// on what it made before reads it: one that reuses a resource the account
// already has, unless this stack made it, say.
func (c *Context) Recorded(typ, name string) (resource.PropertyMap, bool) {
	if c.recorded == nil {
		return nil, false
	}
	return c.recorded(resource.NewURN(c.stack, c.project, c.root.urn.QualifiedType(), typ, name))
}
