// Package lines turns a stream of bytes (a program's output, a hook's)
// into one call per line.
package lines

import (
	"bytes"
	"strings"
	"sync"
)

// Writer calls Emit with each complete line written to it, without its
// line ending ("\n" or "\r\n"). It is safe for concurrent use; Emit is
// called with the writer's lock held, one line at a time.
type Writer struct {
	Emit func(line string)

	mu  sync.Mutex
	buf bytes.Buffer
}

// NewWriter returns a Writer that calls emit.
func NewWriter(emit func(line string)) *Writer { return &Writer{Emit: emit} }

// Write buffers p and emits every line it completes.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.Emit(strings.TrimRight(string(w.buf.Next(i+1)), "\r\n"))
	}
}

// Flush emits what is left after the last line ending, if anything.
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() > 0 {
		w.Emit(w.buf.String())
		w.buf.Reset()
	}
}
