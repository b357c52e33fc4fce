package runner

import "github.com/runnerhq/runner/engine/backend"

// Backends is the registry of the backends runner serves, by URL scheme,
// built where the program starts: file:// (the folder backend). A team
// backend (postgres://, s3://) is one more entry, once it passes the
// conformance suite of engine/backend/backendtest.
func Backends() backend.Registry {
	return backend.Registry{"file": backend.OpenFileURL}
}
