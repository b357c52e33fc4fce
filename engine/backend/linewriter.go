package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// LineWriter is what every backend's journal shares: Begin and End encode
// an entry as a journal line (EncodeJournalEntry) and return once it is
// written, and one goroutine writes whatever lines are queued in one batch
// (group commit), so that steps running side by side share one fsync, one
// insert or one object. write gets each batch's lines in order, never two
// batches at once; after it fails, every later line fails with its error.
type LineWriter struct {
	crypter resource.Crypter
	write   func(lines [][]byte) error
	linger  time.Duration // see NewBatchingLineWriter

	mu     sync.RWMutex // held for reading while queueing, for writing by Stop
	closed bool
	queue  chan lineReq
	exited chan struct{}
}

type lineReq struct {
	line []byte
	done chan error
}

// maxBatch bounds how many queued lines one batch covers.
const maxBatch = 1024

// ErrJournalClosed is what a journal's writes return once it is committed.
var ErrJournalClosed = errors.New("the journal is already committed")

// NewLineWriter starts the writer of a journal whose lines write stores.
func NewLineWriter(crypter resource.Crypter, write func(lines [][]byte) error) *LineWriter {
	return NewBatchingLineWriter(crypter, 0, write)
}

// NewBatchingLineWriter is NewLineWriter for a store where each write is a
// request (an object per batch): while steps run side by side (the
// previous batch held more than one line), a batch waits up to linger for
// more of their lines; a lone step's line never waits.
func NewBatchingLineWriter(crypter resource.Crypter, linger time.Duration, write func(lines [][]byte) error) *LineWriter {
	w := &LineWriter{crypter: crypter, write: write, linger: linger, queue: make(chan lineReq, maxBatch), exited: make(chan struct{})}
	go w.run()
	return w
}

func (w *LineWriter) run() {
	defer close(w.exited)
	var failed error
	batch := make([]lineReq, 0, maxBatch)
	lines := make([][]byte, 0, maxBatch)
	last := 0 // lines in the previous batch
	for req := range w.queue {
		batch = w.gather(append(batch[:0], req), last > 1)
		last = len(batch)
		if failed == nil {
			lines = lines[:0]
			for _, r := range batch {
				lines = append(lines, r.line)
			}
			failed = w.write(lines)
		}
		for _, r := range batch {
			r.done <- failed
		}
	}
}

// Begin records that a step is about to call its plugin; it returns once
// the line is written.
func (w *LineWriter) Begin(ctx context.Context, e Entry) error {
	e.Kind = EntryBegin
	return w.line(ctx, e)
}

// End records a step's outcome (e.Kind EntrySuccess or EntryFailure); it
// returns once the line is written.
func (w *LineWriter) End(ctx context.Context, e Entry) error {
	if e.Kind != EntrySuccess && e.Kind != EntryFailure {
		return fmt.Errorf("recording the end of step %d: kind %q is neither %q nor %q", e.Seq, e.Kind, EntrySuccess, EntryFailure)
	}
	return w.line(ctx, e)
}

func (w *LineWriter) line(ctx context.Context, e Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := encodeEntry(ctx, e, w.crypter)
	if err != nil {
		return fmt.Errorf("journaling step %d (%s): %w", e.Seq, e.Op, err)
	}
	done := make(chan error, 1)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrJournalClosed
	}
	w.queue <- lineReq{line: data, done: done}
	w.mu.RUnlock()
	return <-done // written (or failed): waiting on ctx here could acknowledge a line not yet written
}

// Stop ends the writer once the queued lines are written; a second Stop
// (a second commit) is ErrJournalClosed.
func (w *LineWriter) Stop() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrJournalClosed
	}
	w.closed = true
	close(w.queue)
	w.mu.Unlock()
	<-w.exited
	return nil
}

// gather adds to batch the lines queued meanwhile and, when wait is set
// (and a linger is), those queued within the linger.
func (w *LineWriter) gather(batch []lineReq, wait bool) []lineReq {
	var linger <-chan time.Time
	if wait && w.linger > 0 {
		linger = time.After(w.linger)
	}
	for len(batch) < maxBatch {
		select {
		case r, ok := <-w.queue:
			if !ok {
				return batch
			}
			batch = append(batch, r)
			continue
		default:
		}
		if linger == nil {
			return batch
		}
		select {
		case r, ok := <-w.queue:
			if !ok {
				return batch
			}
			batch = append(batch, r)
		case <-linger:
			return batch
		}
	}
	return batch
}
