// Package engine is runner's embedded deployment engine. A project Program
// declares resources through a Context; the engine compares them with the
// project's recorded state (a state.Snapshot kept by a backend.Backend),
// decides a step for each (same, create, update, replace, delete) with
// Pulumi's semantics, and runs the steps through the resource plugins with
// bounded parallelism, journaling every mutating step before and after its
// plugin call and committing the final snapshot at the end.
//
// Preview runs the same plan without side effects: plugins predict outputs
// and unknown values (resource.Computed) flow to dependents and stack
// outputs. Up, Refresh and Destroy change the world and the state.
package engine
