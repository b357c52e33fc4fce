// Package event defines what the runner reports while it works: one typed
// event per thing that happened, consumed by the terminal view, the plain
// view and the JSON stream alike, so that they cannot disagree.
package event

import (
	"sync"
	"time"
)

// Type names the kind of an event.
type Type string

// Version is the version of the event stream's format, carried by every
// JSON event as "v". It changes when a field changes meaning or goes away;
// a new event type or a new field leaves it as it is.
const Version = 1

// The event types. An operation emits config-defaulted and warning events
// of its validation (preview and up), then operation-start, then for each
// project project-start, its steps and logs, project-done (or
// project-skipped), and finally summary. README.md lists every field.
const (
	OperationStart Type = "operation-start"
	ProjectStart   Type = "project-start"
	StepStart      Type = "step-start"
	StepDone       Type = "step-done"
	StepFailed     Type = "step-failed"
	Log            Type = "log"
	Warning        Type = "warning"
	Outputs        Type = "outputs"
	ProjectDone    Type = "project-done"
	ProjectSkipped Type = "project-skipped"
	Summary        Type = "summary"
)

// SeverityError is the Severity of a warning event that reports an error.
const SeverityError = "error"

// ConfigDefaulted reports the config keys that validation set to their
// defaults (Keys) and the file it wrote them to (File).
const ConfigDefaulted Type = "config-defaulted"

// Event is one thing that happened. Fields that do not apply are empty and
// left out of the JSON form. No field ever holds a plaintext secret.
type Event struct {
	// V is the stream's format version (Version), set by the JSON view.
	V          int       `json:"v"`
	Type       Type      `json:"type"`
	Time       time.Time `json:"time"`
	Operation  string    `json:"operation,omitempty"` // preview, up, refresh, destroy
	Stack      string    `json:"stack,omitempty"`
	Project    string    `json:"project"`
	Op         string    `json:"op,omitempty"` // step operation: create, update, replace, delete, same, ...
	URN        string    `json:"urn,omitempty"`
	Resource   string    `json:"resource_type,omitempty"`
	Keys       []string  `json:"keys,omitempty"` // properties that change
	DurationMS int64     `json:"duration_ms"`
	Message    string    `json:"message,omitempty"`
	// Severity is "error" on a warning event that reports an error a
	// program or a plugin logged (the run goes on; its end says whether
	// the project failed).
	Severity string `json:"severity,omitempty"`
	Error    string `json:"error,omitempty"`
	// Outputs holds a project's outputs for display: secrets already shown
	// as "[secret]" and unknown values as "[unknown]".
	Outputs map[string]any `json:"outputs,omitempty"`
	// Result is the project's or the run's end: succeeded, failed, skipped, cancelled.
	Result string `json:"result,omitempty"`
	// Counts holds the step counts by operation, for project-done and summary.
	Counts map[string]int `json:"counts,omitempty"`
	// Projects holds one row per project, on the summary event.
	Projects []Row `json:"projects,omitempty"`
	// File is the stack config file that config-defaulted wrote (its Keys
	// are the keys set to their defaults).
	File string `json:"file,omitempty"`
	// URLs are the addresses the projects export as "url", on the summary
	// of an up that succeeded.
	URLs []string `json:"urls,omitempty"`
}

// Row is one project's line in the summary.
type Row struct {
	Project    string         `json:"project"`
	Operation  string         `json:"operation"`
	Result     string         `json:"result"`
	Counts     map[string]int `json:"counts,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	Error      string         `json:"error,omitempty"`
}

// Sink receives events. Emit may be called from several goroutines.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Serialized wraps a sink so that its Emit is never called concurrently.
func Serialized(s Sink) Sink { return &serialized{sink: s} }

type serialized struct {
	mu   sync.Mutex
	sink Sink
}

func (s *serialized) Emit(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sink.Emit(e)
}

// Tee sends every event to each sink in turn.
func Tee(sinks ...Sink) Sink {
	return SinkFunc(func(e Event) {
		for _, s := range sinks {
			s.Emit(e)
		}
	})
}

// Recorder keeps every event it receives, for tests and golden files.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Emit records e.
func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}
