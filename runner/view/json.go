// Package view renders runner events: as JSON lines, as plain blocks (one
// per project, printed when the project ends), or as a live terminal view.
package view

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/runnerhq/runner/runner/event"
)

// JSON writes each event as one JSON object per line.
type JSON struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSON returns a JSON view writing to w.
func NewJSON(w io.Writer) *JSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSON{enc: enc}
}

// Emit writes e.
func (j *JSON) Emit(e event.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.enc.Encode(e)
}
