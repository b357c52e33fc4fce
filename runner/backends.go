package runner

import (
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/postgres"
)

// Backends is the registry of the backends runner serves, by URL scheme,
// built where the program starts: file:// (the folder backend) and
// postgres:// (postgresql://), each passing the conformance suite of
// engine/backend/backendtest.
func Backends() backend.Registry {
	return backend.Registry{
		"file":       backend.OpenFileURL,
		"postgres":   postgres.OpenURL,
		"postgresql": postgres.OpenURL,
	}
}
