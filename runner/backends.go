package runner

import (
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/postgres"
	"github.com/runnerhq/runner/engine/backend/s3"
)

// Backends is the registry of the backends runner serves, by URL scheme,
// built where the program starts: file:// (the folder backend),
// postgres:// (postgresql://) and s3:// (the bucket backend in Pulumi's
// DIY layout), each passing the conformance suite of
// engine/backend/backendtest.
func Backends() backend.Registry {
	return backend.Registry{
		"file":       backend.OpenFileURL,
		"postgres":   postgres.OpenURL,
		"postgresql": postgres.OpenURL,
		"s3":         s3.OpenURL,
	}
}
