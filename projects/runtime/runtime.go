// Package runtime runs the programs of users' Pulumi projects as
// source.Hosted: YAML and any pulumi-language-<name> host through Pulumi's
// LanguageRuntime protocol, Node.js programs (JavaScript and TypeScript)
// on @pulumi/pulumi's run script, and Go programs built, then run, as
// Pulumi's own hosts do. Every process is tied to runner's life.
package runtime

import (
	"fmt"
	"os"
	"strings"

	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
)

// Options are what the runtimes need of the run.
type Options struct {
	// Environ is the environment hosts and programs run with (nil:
	// os.Environ()).
	Environ []string
	// CacheDir holds the binaries built of Go programs, one folder per
	// project folder.
	CacheDir string
}

func (o Options) environ() []string {
	if o.Environ == nil {
		return os.Environ()
	}
	return o.Environ
}

func (o Options) getenv(key string) string {
	v := ""
	for _, kv := range o.environ() {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// MissingError is a runtime that cannot start: what is missing and how to
// get it.
type MissingError struct {
	Project, Runtime string
	What, Fix        string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("project %s (runtime %s) cannot run: %s; %s", e.Project, e.Runtime, e.What, e.Fix)
}

// For returns the runtime that runs project p's program, checking that it
// can start: a *MissingError says what is missing.
func For(p *pulumiproject.Project, o Options) (source.Hosted, error) {
	prog, err := p.Program()
	if err != nil {
		return nil, err
	}
	switch p.Runtime {
	case "nodejs":
		return newNode(p, prog, o)
	case "go":
		return newGo(p, prog, o)
	case "yaml":
		if err := pulumiproject.CheckYAMLTemplate(prog); err != nil {
			return nil, err
		}
		return newHost(p, prog, o)
	default:
		return newHost(p, prog, o)
	}
}
