package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// Options configure one operation on one (project, stack).
type Options struct {
	Project, Stack string
	// Backend holds the state, journals and locks.
	Backend backend.Backend
	// Plugins serve the resource types, one per package.
	Plugins []resource.Plugin
	// Crypter protects the snapshot's secrets at rest.
	Crypter resource.Crypter
	// SecretsProvider is recorded in the snapshot (nil: keep the previous one).
	SecretsProvider *state.SecretsProvider
	// Config holds the stack config ("namespace:key" -> value; secrets as
	// resource.Secret).
	Config map[string]any
	// Parallel bounds how many steps run at once (0: DefaultParallel).
	Parallel int
	// Events receives progress, one call at a time (nil: none).
	Events func(Event)
	// Lock names the holder recorded in the (project, stack) lock.
	Lock backend.LockInfo
	// Held are the locks the caller holds around the operation (the
	// stack's own lock): like the (project, stack) lock the operation
	// takes, each is confirmed (backend.Lock.Confirm) before every step
	// calls its plugin, and no step starts unless all are.
	Held []backend.Lock
	// Refresh makes Preview and Up read every recorded resource back first
	// (as Refresh does), so that the plan starts from the real state.
	Refresh bool
	// References, when set, gives the stack outputs of other projects that a
	// StackReference reads instead of their stored snapshot: ok false means
	// "not known here, load the snapshot". Unknown values are
	// resource.Computed, secrets resource.Secret.
	References func(project string) (resource.PropertyMap, bool)
	// ReferenceCrypter, when set, opens the crypter of a project's state on
	// another stack, for a stack reference to it: each stack's secrets have
	// a salt of their own. nil: such a state is read with Crypter.
	ReferenceCrypter func(ctx context.Context, project, stack string) (resource.Crypter, error)
	// EngineVersion is the version of the program running the engine,
	// recorded in the manifest of every snapshot written ("": "dev").
	EngineVersion string
	// Dir is the project directory: relative paths of file assets and
	// archives resolve against it ("": the current directory).
	Dir string
	// Hosted, when set, is the program of Preview and Up, run by its
	// language runtime: the engine serves it a ResourceMonitor (and the
	// Engine, health and schema Loader services) on a loopback port for the
	// operation and runs it; the Program argument is then ignored (nil).
	Hosted source.Hosted
	// LoadPlugin, when set, finds the plugin of a package that Plugins
	// does not serve (or not at the version a registration asks for), as
	// Pulumi finds it, installing it when missing (downloadURL: where from,
	// "" for the default source). Its error should say how to install the
	// plugin by hand.
	LoadPlugin func(ctx context.Context, pkg, version, downloadURL string) (resource.Plugin, error)
	// LoadParameterized, when set, finds (or installs) the base plugin of
	// a parameterized package, as LoadPlugin does, and returns it
	// parameterized (nil: parameterized packages fail).
	LoadParameterized func(ctx context.Context, pz resource.Parameterization, downloadURL string) (resource.Plugin, error)
	// Organization is the organization of stack references' names
	// ("organization/<project>/<stack>"; "": "organization").
	Organization string
	// Upstream, when set, are the projects this project depends on in its
	// environment (transitively), and false the environment's others: a
	// hosted program's stack reference to any other project fails, naming
	// the dependsOn to add (or that there is no such project). nil: any
	// project may be referenced.
	Upstream map[string]bool
	// Plan, for Up, is the plan to execute (as Preview returned it in
	// Result.Plan): Up refuses it with a *PlanMismatchError, changing
	// nothing, when the stored state changed since, and stops before the
	// first step that differs from its planned step. Other operations
	// ignore it.
	Plan *Plan
}

// The operation kinds, as recorded in history.
const (
	kindPreview = runstate.KindPreview
	kindUpdate  = runstate.KindUpdate
	kindRefresh = runstate.KindRefresh
	kindDestroy = runstate.KindDestroy
)

func (o *Options) parallel() int {
	if o.Parallel > 0 {
		return o.Parallel
	}
	return DefaultParallel()
}

// engineVersion returns the version recorded in snapshot manifests.
func (o *Options) engineVersion() string {
	if o.EngineVersion != "" {
		return o.EngineVersion
	}
	return "dev"
}

func (o *Options) validate() error {
	switch {
	case o.Project == "" || o.Stack == "":
		return errors.New("the engine needs a project and a stack name")
	case o.Backend == nil:
		return fmt.Errorf("project %s: the engine needs a backend to keep state in", o.Project)
	}
	return nil
}
