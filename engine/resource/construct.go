package resource

import "context"

// Constructor is a Plugin that serves components (Pulumi's Construct: a
// multi-language, or remote, component such as those of @pulumi/eks).
// Only configured plugins (those Configurable.Configure returns) serve
// them. The plugin registers the component and its children through the
// resource monitor at MonitorAddress, as a program does, and answers with
// the component's URN and outputs.
type Constructor interface {
	Construct(ctx context.Context, req ConstructRequest) (ConstructResponse, error)
}

// ConstructRequest asks a plugin to construct a component: the run it
// belongs to (as a program's run request), the component's type, name,
// parent and inputs (secrets and unknowns as the program sent them), and
// the resource options the program gave it.
type ConstructRequest struct {
	Run
	Type, Name string
	Parent     URN
	Inputs     PropertyMap
	// InputDependencies are the resources each input depends on;
	// Dependencies those of the whole component (its dependsOn too).
	InputDependencies map[string][]URN
	Dependencies      []URN
	// Providers are the providers the program gave, by package: each a
	// reference "<URN>::<ID>".
	Providers map[string]string

	// The resource options (nil pointers: not given).
	Protect, DeleteBeforeReplace, RetainOnDelete *bool
	Aliases                                      []URN
	// AliasSpecs are the aliases given as specs, passed on as they are
	// (the component's provider registers it with them).
	AliasSpecs                      []Alias
	AdditionalSecretOutputs         []string
	IgnoreChanges, ReplaceOnChanges []string
	// Timeouts are the custom timeouts as given ("5m"; "" for none).
	CreateTimeout, UpdateTimeout, DeleteTimeout string
	DeletedWith                                 URN
}

// ConstructResponse is a constructed component: its URN, its outputs
// (unknowns in a preview) and the resources each output depends on.
type ConstructResponse struct {
	URN               URN
	State             PropertyMap
	StateDependencies map[string][]URN
}

// Run is the run a component's provider works in, as a program's run
// request carries it: it registers through the monitor at MonitorAddress.
type Run struct {
	MonitorAddress               string
	Project, Stack, Organization string
	// Config is the stack config in Pulumi's wire form, secret values in
	// plain text and named in ConfigSecretKeys.
	Config           map[string]string
	ConfigSecretKeys []string
	DryRun           bool
	Parallel         int32
}

// Caller is a Plugin that serves methods of its components (Pulumi's
// Call: a method of a multi-language component, such as an EKS
// cluster's getKubeconfig). Only configured plugins serve them.
type Caller interface {
	Call(ctx context.Context, req CallRequest) (CallResponse, error)
}

// CallRequest calls a method (Token "<component type>/<method>") with its
// arguments (the component itself as __self__) and the resources each
// argument depends on.
type CallRequest struct {
	Run
	Token           string
	Args            PropertyMap
	ArgDependencies map[string][]URN
}

// CallResponse is a method's result and the resources each returned
// value depends on, or why it refused its arguments.
type CallResponse struct {
	Return             PropertyMap
	ReturnDependencies map[string][]URN
	Failures           []CheckFailure
}
