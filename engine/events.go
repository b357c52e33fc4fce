package engine

import (
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// The event types.
const (
	EventStepStart        = "step-start"
	EventStepDone         = "step-done"
	EventStepFailed       = "step-failed"
	EventDiagnostic       = "diagnostic"
	EventPendingOperation = "pending-operation"
)

// The severities of diagnostic and pending-operation events.
const (
	SeverityInfo    = "info"
	SeverityWarning = "warning"
	SeverityError   = "error"
)

// Event reports progress. Events never hold property values: only keys,
// and messages with secrets redacted.
type Event struct {
	Type         string
	Time         time.Time
	Project      string
	Stack        string
	Op           Op
	URN          resource.URN
	ResourceType string
	Duration     time.Duration
	Keys         []string // the properties that change
	Severity     string   // for diagnostics and pending operations
	Message      string
	Error        string
}

// emitter serializes calls to the Events callback.
type emitter struct {
	mu      sync.Mutex
	fn      func(Event)
	project string
	stack   string
}

func (e *emitter) emit(ev Event) {
	if e == nil || e.fn == nil {
		return
	}
	ev.Time = time.Now()
	ev.Project, ev.Stack = e.project, e.stack
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fn(ev)
}

func (e *emitter) enabled() bool { return e != nil && e.fn != nil }

// diag emits a diagnostic event.
func (e *emitter) diag(severity, msg string) {
	e.emit(Event{Type: EventDiagnostic, Severity: severity, Message: msg})
}

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

// StepSummary is one step of a plan or an operation.
type StepSummary struct {
	Op   Op
	URN  resource.URN
	Type string
	Keys []string // changed properties (sorted); for refresh, the drifted outputs
}
