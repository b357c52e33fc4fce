// Package stepgen is the engine's step generator: it decides the step of
// each registration when it arrives, on the operation's run state
// (engine/runstate), and never runs one. A custom resource's step comes
// from its inputs (ignoreChanges kept), the plugin's Check and Diff read
// as Pulumi reads them (a diff read as a decision, replaceOnChanges, a
// delete-before-replace's dependents) and an import's Read; a provider's
// from its config and the plugin's CheckConfig and DiffConfig; the deletes
// from what the program did not register, in reverse dependency order.
// Preview and up decide alike; only the execution (engine/stepexec)
// differs.
package stepgen

import "github.com/runnerhq/runner/engine/runstate"

// Generator decides the steps of one operation on its run state.
type Generator struct{ *runstate.State }
