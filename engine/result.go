package engine

import (
	"errors"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
)

// Event reports progress (runstate.Event). Events never hold property
// values: only keys, and messages with secrets redacted.
type Event = runstate.Event

// StepSummary is one step of a plan or an operation (runstate.StepSummary).
type StepSummary = runstate.StepSummary

// The event types (runstate.EventStepStart and the others).
const (
	EventStepStart        = runstate.EventStepStart
	EventStepDone         = runstate.EventStepDone
	EventStepFailed       = runstate.EventStepFailed
	EventDiagnostic       = runstate.EventDiagnostic
	EventPendingOperation = runstate.EventPendingOperation
)

// The severities of diagnostic and pending-operation events.
const (
	SeverityInfo    = runstate.SeverityInfo
	SeverityWarning = runstate.SeverityWarning
	SeverityError   = runstate.SeverityError
)

// Result is what an operation did (or, for a preview, would do).
type Result struct {
	// Changes counts the steps by operation. A replacement counts once, as
	// OpReplace; the root stack resource is counted, default providers not.
	Changes map[Op]int
	// Outputs are the stack outputs after the operation; during preview
	// unknown values are resource.Computed. Secrets are resource.Secret.
	Outputs resource.PropertyMap
	// Steps lists every step other than same, in the order they finished
	// (for a preview: the plan), with the properties that change.
	Steps []StepSummary
	// Plan is, for a preview that succeeded, the plan: every step decided,
	// to show, save (MarshalPlan) or execute (Options.Plan).
	Plan *Plan
	// Duration is how long the operation took.
	Duration time.Duration
}

// NotSavedError is an operation whose state could not be saved at its end
// (its commit failed, or an interrupted run could not prove its lock still
// held): what its steps did is kept in its journal, which the next run
// folds in.
type NotSavedError struct{ Err error }

func (e *NotSavedError) Error() string { return e.Err.Error() }
func (e *NotSavedError) Unwrap() error { return e.Err }

// causedError is an operation's error with a cause its message may only
// relay (a program that failed on a plugin that cannot be had): errors.As
// finds the cause, the message is the operation's.
type causedError struct{ err, cause error }

func (e *causedError) Error() string   { return e.err.Error() }
func (e *causedError) Unwrap() []error { return []error{e.err, e.cause} }

// withPluginCause returns runErr with the operation's failed plugin load as
// a cause, when there was one and runErr does not already hold it.
func (d *deployment) withPluginCause(runErr error) error {
	var up *resource.UnavailablePluginError
	if runErr == nil || errors.As(runErr, &up) {
		return runErr
	}
	if cause := d.PluginLoadError(); cause != nil && errors.As(cause, &up) {
		return &causedError{err: runErr, cause: cause}
	}
	return runErr
}
