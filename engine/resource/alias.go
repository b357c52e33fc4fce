package resource

// Alias is one former identity of a resource, as Pulumi's alias spec
// gives it: a whole URN, or what differed from the resource's own (its
// name, type, stack, project, parent, or no parent at all).
type Alias struct {
	// URN, when set, is the former URN whole (the other fields unused).
	URN                        URN
	Name, Type, Stack, Project string
	// Parent is the former parent's URN ("": the resource's own parent
	// unless NoParent says it had none).
	Parent   URN
	NoParent bool
}

// URNOf resolves the alias of a resource (its name, type and parent in
// project and stack) into the URN it names, as Pulumi's engine does: what
// the alias leaves empty is the resource's own; a parent the alias names
// that was itself found under a former URN (former gives it, "" when
// not) stands for that URN; no parent, or the root stack, leaves no
// parent type in the URN.
func (a Alias) URNOf(name, typ string, parent URN, project, stack string, former func(URN) URN) URN {
	if a.URN != "" {
		return a.URN
	}
	if a.Name != "" {
		name = a.Name
	}
	if a.Type != "" {
		typ = a.Type
	}
	if a.Parent != "" {
		parent = a.Parent
		if old := former(parent); old != "" {
			parent = old
		}
	}
	if a.Project != "" {
		project = a.Project
	}
	if a.Stack != "" {
		stack = a.Stack
	}
	parentType := ""
	if parent != "" && !a.NoParent {
		parentType = parent.QualifiedType()
	}
	return NewURN(stack, project, parentType, typ, name)
}
