// Package engine is runner's embedded deployment engine. A project Program
// declares resources through a Context; the engine compares them with the
// project's recorded state (a state.Snapshot kept by a backend.Backend),
// decides a step for each (same, create, update, replace, import, delete)
// with Pulumi's semantics, and runs the steps through the resource plugins with
// bounded parallelism, journaling every mutating step before and after its
// plugin call and committing the final snapshot at the end.
//
// Preview runs the same plan without side effects: plugins predict outputs
// and unknown values (resource.Computed) flow to dependents and stack
// outputs. Up, Refresh and Destroy change the world and the state.
//
// A step is a value (Step): deciding it (resolve the inputs, keep the
// ignored ones, the plugin's Check and Diff) is one function that preview
// and up share; executing it is another. Preview returns the steps it
// decided as a Plan (Result.Plan), which MarshalPlan saves with its
// secrets encrypted. Up given that plan (Options.Plan) executes it only
// while the stored state is the one the plan was made from and every step
// it decides is the planned one; otherwise it stops with a
// *PlanMismatchError before the first step that differs.
//
// The packages follow the life of a plan and the path of a registration
// (docs/architecture.md), each importing only those below it:
// engine/program holds what programs use (Context, Resource, Output,
// StackReference, the options); engine/source feeds registrations (a
// compiled-in program; a hosted one through engine/monitor); engine/runstate
// holds an operation's state in memory; engine/stepgen decides each
// registration's step (and the deletes) and engine/stepexec runs it (the
// plugin calls, the journal writes and the commit), neither importing the
// other; engine/plan holds the plan values (Op, Step, Plan), their file
// encoding and the plan check. This package wires them: it locks and
// loads the stack, runs the source into the stream (admit, provider,
// decide, check against the plan, execute, answer), the deletes and
// refreshes over engine/walk, and commits; it keeps the program-facing
// and plan names as aliases, so that projects and the runner use the
// engine through this package alone.
package engine

// Journal entries. Every mutating step writes a begin entry before its
// plugin call and a success or failure entry after it, both carrying the
// same Seq and Op. What a successful entry means for the snapshot:
//
//   - "create": New is appended (Old is nil).
//   - "update": the record matching Old (URN and ID) becomes New.
//   - "create-replacement" with Old set (create before delete): New is
//     appended and the live record matching Old is marked Delete (condemned,
//     deleted later by a "delete-replaced" entry). With Old nil (the old
//     resource was already deleted, delete before replace): New is appended.
//   - "delete" and "delete-replaced": the record matching Old (URN, ID and
//     Delete flag) is removed (New is nil).
//   - "import": New (read before the entry, with its ID) is appended; begin
//     and end are written together.
//
// A create or update that made the resource but failed to initialize it
// (resource.InitError) ends in success, New carrying the init errors: the
// resource exists and is recorded, and the step still fails.
//
// A begin entry without an end is a pending operation: "creating" for
// create and create-replacement (the resource is the begin entry's New,
// without an ID), "updating" for update (New, with the ID), "deleting" for
// the deletes (Old). Steps with no plugin call (same, components, the root
// stack, default providers, refresh reads) are not journaled: the snapshot
// committed at the end of the operation records them.
