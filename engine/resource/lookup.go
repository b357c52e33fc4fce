package resource

// Lookup finds, through a function of the resource's own plugin, the ID of
// a resource that its cloud names (a DOKS cluster's UUID, an LKE
// cluster's number) but that the user's inputs name too (a cluster's name
// or label): the function lists the resources so named, and Found picks
// the ID out of its result. It lets a create interrupted before its
// plugin answered be adopted when the cloud made it, or made again when
// it did not, as IdentityFunc does for resources named by their inputs.
type Lookup struct {
	// Token and Args are the function of the plugin and its arguments.
	Token string
	Args  PropertyMap
	// Found returns the ID of the one resource the result holds, "" when
	// it holds none, or an error when it holds more than one (no run can
	// tell which was its own) or cannot be read.
	Found func(result PropertyMap) (string, error)
	// Absent reports whether an error of the function means that nothing
	// matched (some functions fail rather than return an empty list); nil:
	// every error is one.
	Absent func(err error) bool
}

// LookupFunc returns, from a resource's type token and checked inputs, how
// to find it by what the user named it (ok false: the type has no such
// name, or the inputs do not say). A plugin declares it beside its
// IdentityFunc; the engine knows no package by name.
type LookupFunc func(typ string, inputs PropertyMap) (l Lookup, ok bool)
