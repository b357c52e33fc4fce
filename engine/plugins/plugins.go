// Package plugins lists the built-in resource plugins.
package plugins

import (
	"github.com/runnerhq/runner/engine/plugins/command"
	"github.com/runnerhq/runner/engine/plugins/file"
	"github.com/runnerhq/runner/engine/plugins/process"
	"github.com/runnerhq/runner/engine/plugins/random"
	"github.com/runnerhq/runner/engine/plugins/tls"
	"github.com/runnerhq/runner/engine/resource"
)

// Builtin returns one of each built-in resource plugin: random, tls,
// command, file and process. Commands and processes start from environ
// (KEY=VALUE; nil: runner's own environment). Each is safe for concurrent
// use.
func Builtin(environ []string) []resource.Plugin {
	return []resource.Plugin{random.Plugin{}, tls.Plugin{}, command.Plugin{Environ: environ},
		file.Plugin{}, process.Plugin{Environ: environ}}
}
