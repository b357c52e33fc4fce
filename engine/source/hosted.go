// Package source holds what feeds the engine registrations: compiled-in Go
// programs, and programs run by a language runtime against the engine's
// ResourceMonitor.
package source

import (
	"context"
	"io"

	"github.com/runnerhq/runner/engine/resource"
)

// Hosted is a program run by a language runtime (Pulumi's YAML host, node,
// a Go binary, any pulumi-language-<name> host): it connects to the
// engine's ResourceMonitor at RunRequest.MonitorAddress and registers
// resources until it exits.
type Hosted interface {
	// Run runs the program once and returns when it has exited: nil when
	// it exited cleanly, an error saying what failed otherwise (the
	// program's own error message, printed once). ctx cancels the run.
	Run(ctx context.Context, req RunRequest) error
}

// RunRequest is what one run of a hosted program gets, as Pulumi's
// LanguageRuntime RunRequest carries it.
type RunRequest struct {
	// MonitorAddress and EngineAddress are the loopback addresses of the
	// ResourceMonitor and Engine services (host:port).
	MonitorAddress, EngineAddress string
	// LoaderAddress is the schema Loader's address ("" when not served).
	LoaderAddress                string
	Project, Stack, Organization string
	// Pwd is the project folder; Program is its main (relative to Pwd,
	// "" or "." for the folder itself).
	Pwd, Program string
	// Config is the stack config in Pulumi's wire form: "namespace:key" to
	// the value as a string (objects and arrays as JSON). Secret values are
	// in plain text here and named in ConfigSecretKeys: they go to the
	// program's request only, never to its environment or a log.
	Config           map[string]string
	ConfigSecretKeys []string
	DryRun           bool
	Parallel         int32
	// Stdout and Stderr receive the program's own output (the project's log).
	Stdout, Stderr io.Writer
	// StopLater, when set, takes the stop of what Run leaves running once
	// the program ended (its language host's process): the engine runs it
	// while it saves the state, and waits for it (and the output it
	// flushes) before the operation ends. Unset: Run stops it before it
	// returns.
	StopLater func(stop func())
}

// Package is a plugin a hosted program needs, as a language host's
// GetRequiredPackages names it.
type Package struct {
	Name, Version, Server string
	// Param is a parameterized package's parameterization (nil: none);
	// Name and Version are then the package's, not its base plugin's.
	Param *resource.Parameterization
	// For names what needs the package (a type and URN), for errors ("":
	// the program).
	For string
}

// PackageLister is a Hosted that can name the plugins its program needs
// before it runs (Pulumi's GetRequiredPackages), so that missing ones are
// installed, or named, before anything changes.
type PackageLister interface {
	RequiredPackages(ctx context.Context, req RunRequest) ([]Package, error)
}

// Releaser is a PackageLister whose RequiredPackages may leave something
// running for the Run that follows (the language host, which both calls
// share): Release stops it when no Run follows (the operation ended
// before its program ran: the stack was locked, a plugin is missing).
type Releaser interface {
	Release(req RunRequest)
}

// Gated is a Hosted whose program may reach the engine only once Gate
// returns nil (the stack's passphrase is checked): the engine serves the
// program's calls after that, and ends the run with Gate's error.
type Gated interface {
	Gate(ctx context.Context) error
}

// Declarative is a Hosted whose programs do nothing but call the engine's
// services: no code of the user's runs (Pulumi YAML). The engine may start
// such a program while it checks what must be checked before anything
// changes (the plugins the program names, the passphrase), its calls to
// the engine waiting until then; any other program starts only after.
type Declarative interface {
	Declarative() bool
}

// UnknownsAbsent is a Hosted whose SDK reads a stack reference output that
// is absent in a preview as unknown, but one whose value is unknown as
// absent (Pulumi's Go SDK: StackReference.GetOutput and GetStringOutput).
// In a preview, the engine answers such a program's stack reference reads
// without the outputs that hold a value not known yet (the planned outputs
// of an upstream project), so that it sees them unknown; the outputs of
// others (TypeScript, YAML) keep them, unknown.
type UnknownsAbsent interface {
	UnknownsAbsent() bool
}

// LocalDialer is a Hosted whose host dials the engine's services with
// grpc-go, which takes a Unix socket's address: the engine then serves it
// on one (on Linux), whose calls cost less CPU than loopback TCP's. Other
// hosts, and plugins (a component's Construct), get the TCP port.
type LocalDialer interface {
	DialsLocal() bool
}
