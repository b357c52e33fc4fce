package program

import "time"

// ResourceOption adjusts how a resource is managed.
type ResourceOption func(*resourceOptions)

type resourceOptions struct {
	dependsOn               []*Resource
	protect                 bool
	ignoreChanges           []string
	deleteBeforeReplace     bool
	deleteBeforeReplaceSet  bool
	retainOnDelete          bool
	parent                  *Resource
	additionalSecretOutputs []string
	importID                string
	customTimeouts          CustomTimeouts
	provider                *Resource
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

// IgnoreChanges keeps the recorded values of the input properties at the
// given paths (Pulumi's property path syntax: "tags", "tags.Name",
// "rules[0].port", `labels["a.b"]`): changes to them in the program cause
// no update. A path absent from the recorded inputs is left out.
func IgnoreChanges(keys ...string) ResourceOption {
	return func(o *resourceOptions) { o.ignoreChanges = append(o.ignoreChanges, keys...) }
}

// DeleteBeforeReplace deletes the old resource before creating its
// replacement (true) or creates the replacement first (false). Without it
// the plugin decides, as Pulumi does: most create the replacement first,
// and some ask to delete first for resources whose names must be unique;
// DeleteBeforeReplace(false) overrides such a request.
func DeleteBeforeReplace(on bool) ResourceOption {
	return func(o *resourceOptions) { o.deleteBeforeReplace, o.deleteBeforeReplaceSet = on, true }
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

// Import adopts the existing real resource with this ID instead of
// creating one, the first time the resource is deployed: the engine reads
// it, and the program's inputs must match what it read (the step fails
// naming the differing properties otherwise). Once the resource is in the
// state the option has no effect.
func Import(id string) ResourceOption {
	return func(o *resourceOptions) { o.importID = id }
}

// CustomTimeouts bound how long the plugin may take to create, update and
// delete the resource (0: the plugin's default). The engine passes them to
// the plugin, records them in the state, and ends a call that outlives its
// bound by a short grace with an error.
type CustomTimeouts struct {
	Create, Update, Delete time.Duration
}

// Timeouts sets the resource's CustomTimeouts.
func Timeouts(t CustomTimeouts) ResourceOption {
	return func(o *resourceOptions) { o.customTimeouts = t }
}

// Provider makes the resource use the explicit provider p (a resource of
// type "pulumi:providers:<package>" declared in the same program) instead
// of its package's default provider: the plugin is configured from p's
// inputs, which may hold outputs (a kubeconfig read from another project,
// say), and the resource waits for p.
func Provider(p *Resource) ResourceOption {
	return func(o *resourceOptions) { o.provider = p }
}
