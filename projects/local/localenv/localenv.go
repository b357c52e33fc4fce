// Package localenv holds what the local environment's projects need to know
// about the machine they run on: the workspace, where their files go, and
// the runner binary that serves the application.
package localenv

import (
	"path/filepath"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugins/file"
	"github.com/runnerhq/runner/engine/plugins/tls"
)

// Runtime describes one run of the local environment.
type Runtime struct {
	// Workspace is the absolute path of the workspace folder.
	Workspace string
	// DataDir is where the environment's files live:
	// <workspace>/.runner/local/<stack> by default.
	DataDir string
	// Executable is the runner binary, which serves the application.
	Executable string
	// Stack is the stack name.
	Stack string
}

// Path returns the path of a file of project under DataDir.
func (r Runtime) Path(project, name string) string {
	return filepath.Join(r.DataDir, project, name)
}

// File declares a file:index:File resource named name: content (a string or
// an Output) written to path with mode (octal, such as "0600").
func File(ctx *engine.Context, name, path string, content any, mode string, opts ...engine.ResourceOption) *engine.Resource {
	return ctx.Resource(file.Type, name, engine.Inputs{"path": path, "content": content, "mode": mode}, opts...)
}

// ECDSAKey declares a tls private key named name on the P-256 curve.
func ECDSAKey(ctx *engine.Context, name string) *engine.Resource {
	return ctx.Resource(tls.PrivateKeyType, name, engine.Inputs{"algorithm": "ECDSA", "ecdsaCurve": "P256"})
}
