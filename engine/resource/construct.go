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
	MonitorAddress               string
	Project, Stack, Organization string
	// Config is the stack config in Pulumi's wire form, secret values in
	// plain text and named in ConfigSecretKeys.
	Config           map[string]string
	ConfigSecretKeys []string
	DryRun           bool
	Parallel         int32

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
	AdditionalSecretOutputs                      []string
	IgnoreChanges, ReplaceOnChanges              []string
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
