package program

// ResourceOption adjusts how a resource is managed.
type ResourceOption func(*resourceOptions)

type resourceOptions struct {
	dependsOn               []*Resource
	protect                 bool
	ignoreChanges           []string
	deleteBeforeReplace     bool
	retainOnDelete          bool
	parent                  *Resource
	additionalSecretOutputs []string
}

// DependsOn makes the resource wait for rs (and, for a component, for the
// component's children declared before the resource), on top of the
// dependencies its inputs imply.
func DependsOn(rs ...*Resource) ResourceOption {
	return func(o *resourceOptions) { o.dependsOn = append(o.dependsOn, rs...) }
}

// Protect refuses every delete or replacement of the resource while set.
func Protect(on bool) ResourceOption {
	return func(o *resourceOptions) { o.protect = on }
}

// IgnoreChanges keeps the recorded values of the named top-level input
// properties: changes to them in the program cause no update.
func IgnoreChanges(keys ...string) ResourceOption {
	return func(o *resourceOptions) { o.ignoreChanges = append(o.ignoreChanges, keys...) }
}

// DeleteBeforeReplace deletes the old resource before creating its
// replacement (the default creates the replacement first).
func DeleteBeforeReplace(on bool) ResourceOption {
	return func(o *resourceOptions) { o.deleteBeforeReplace = on }
}

// RetainOnDelete leaves the real resource in place when the engine deletes
// it: it only leaves the state.
func RetainOnDelete(on bool) ResourceOption {
	return func(o *resourceOptions) { o.retainOnDelete = on }
}

// Parent makes r the resource's parent (usually a component).
func Parent(r *Resource) ResourceOption {
	return func(o *resourceOptions) { o.parent = r }
}

// AdditionalSecretOutputs marks the named output properties secret.
func AdditionalSecretOutputs(keys ...string) ResourceOption {
	return func(o *resourceOptions) {
		o.additionalSecretOutputs = append(o.additionalSecretOutputs, keys...)
	}
}
