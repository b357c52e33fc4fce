package resource

import "context"

// Invoker is a Plugin that serves functions (Pulumi's Invoke: data
// sources). Only configured plugins (those Configurable.Configure
// returns) serve them.
type Invoker interface {
	Invoke(ctx context.Context, req InvokeRequest) (InvokeResponse, error)
}

// InvokeRequest calls a function with its arguments.
type InvokeRequest struct {
	Token string
	Args  PropertyMap
}

// InvokeResponse is a function's result, or why it refused its
// arguments.
type InvokeResponse struct {
	Return   PropertyMap
	Failures []CheckFailure
}

// SchemaSource is a Plugin that can give its package's schema (Pulumi's
// GetSchema), as the YAML language host needs it.
type SchemaSource interface {
	Schema(ctx context.Context) ([]byte, error)
}
