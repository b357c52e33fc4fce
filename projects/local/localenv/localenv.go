// Package localenv holds what the local environment's projects need to know
// about the machine they run on: the workspace, where their files go, and
// the runner binary that serves the application.
package localenv

import "path/filepath"

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
