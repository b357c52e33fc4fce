// Package view renders runner events: as JSON lines, as plain blocks (one
// per project, printed when the project ends), or as a live terminal view.
package view

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/runnerhq/runner/runner/event"
)

// JSON writes each event as one JSON object per line, with the stream's
// format version (event.Version) as "v".
type JSON struct {
	mu  sync.Mutex
	w   *stickyWriter
	enc *json.Encoder
	bad error // the first event that could not be encoded
}

// NewJSON returns a JSON view writing to w.
func NewJSON(w io.Writer) *JSON {
	sw := &stickyWriter{w: w}
	enc := json.NewEncoder(sw)
	enc.SetEscapeHTML(false)
	return &JSON{w: sw, enc: enc}
}

// Emit writes e. After a failed write it writes nothing more; Err returns
// the failure.
func (j *JSON) Emit(e event.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.w.err != nil {
		return
	}
	e.V = event.Version
	e = withoutEscapes(e)
	if err := j.enc.Encode(e); err != nil && j.w.err == nil && j.bad == nil {
		j.bad = fmt.Errorf("encoding the %s event of project %q as JSON: %w", e.Type, e.Project, err)
	}
}

// Err returns the first error of writing the stream (or of encoding one of
// its events), nil when every event was written.
func (j *JSON) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.w.error("the JSON event stream to stdout"); err != nil {
		return err
	}
	return j.bad
}

// stickyWriter keeps the first write error and writes nothing after it, so
// that a view whose output fails (a full disk, a closed pipe) says so once,
// at the end, instead of failing silently or on every event.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// error names what could not be written, nil when all was.
func (s *stickyWriter) error(what string) error {
	if s.err == nil {
		return nil
	}
	return fmt.Errorf("writing %s failed, so it is incomplete: %w", what, s.err)
}
