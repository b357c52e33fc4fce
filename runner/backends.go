package runner

import (
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/s3"
)

// Backends is the registry of the backends runner serves, by URL scheme,
// built where the program starts: file:// (the folder backend) and s3://
// (the bucket backend in Pulumi's DIY layout). Each passes the conformance
// suite of engine/backend/backendtest.
func Backends() backend.Registry {
	return backend.Registry{"file": backend.OpenFileURL, "s3": s3.OpenURL}
}
