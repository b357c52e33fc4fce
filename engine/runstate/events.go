package runstate

import (
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/plan"
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
	Op           plan.Op
	URN          resource.URN
	ResourceType string
	Duration     time.Duration
	Keys         []string // the properties that change
	Severity     string   // for diagnostics and pending operations
	Message      string
	Error        string
}

// Emitter serializes calls to the Events callback.
type Emitter struct {
	mu      sync.Mutex
	fn      func(Event)
	project string
	stack   string
}

// NewEmitter returns the emitter of one operation's events (fn nil: none).
func NewEmitter(fn func(Event), project, stack string) *Emitter {
	return &Emitter{fn: fn, project: project, stack: stack}
}

// Emit sends ev, stamped with the time, project and stack.
func (e *Emitter) Emit(ev Event) {
	if e == nil || e.fn == nil {
		return
	}
	ev.Time = time.Now()
	ev.Project, ev.Stack = e.project, e.stack
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fn(ev)
}

// Enabled reports whether anyone receives the events.
func (e *Emitter) Enabled() bool { return e != nil && e.fn != nil }

// Diag emits a diagnostic event.
func (e *Emitter) Diag(severity, msg string) {
	e.Emit(Event{Type: EventDiagnostic, Severity: severity, Message: msg})
}

// StepSummary is one step of a plan or an operation.
type StepSummary struct {
	Op   plan.Op
	URN  resource.URN
	Type string
	Keys []string // changed properties (sorted); for refresh, the drifted outputs
}

// StepStart emits the event of a step that starts.
func (s *State) StepStart(op plan.Op, urn resource.URN, typ string, keys []string) {
	s.Events.Emit(Event{Type: EventStepStart, Op: op, URN: urn, ResourceType: typ, Keys: keys})
}

// StepDone emits the event of a step that succeeded, started at start.
func (s *State) StepDone(op plan.Op, urn resource.URN, typ string, keys []string, start time.Time) {
	s.Events.Emit(Event{Type: EventStepDone, Op: op, URN: urn, ResourceType: typ, Keys: keys, Duration: time.Since(start)})
}

// StepFailed emits the event of a step that failed with err, started at
// start.
func (s *State) StepFailed(op plan.Op, urn resource.URN, typ string, err error, start time.Time) {
	s.Events.Emit(Event{Type: EventStepFailed, Op: op, URN: urn, ResourceType: typ, Error: err.Error(), Duration: time.Since(start)})
}
