package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/runnerhq/runner/runner/term"
)

// Output is where a command prints its result: with --json as JSON (a
// document for listings, one object otherwise), else as text. Commands
// print through it, so that --json is decided in one place.
type Output struct {
	// W is stdout.
	W io.Writer
	// JSON is --json.
	JSON bool
}

// OutputOf returns the output of opts: stdout, as JSON with --json.
func OutputOf(opts Options) Output {
	return Output{W: streams(opts).Out, JSON: opts.JSON}
}

// streams returns the terminal streams of opts (the process's when unset).
func streams(opts Options) *term.IO {
	if opts.IO == nil {
		return term.System()
	}
	return opts.IO
}

// Listing writes v as an indented JSON document with --json, else calls text.
func (o Output) Listing(v any, text func(w io.Writer) error) error {
	if !o.JSON {
		return text(o.W)
	}
	enc := json.NewEncoder(o.W)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Object writes v as one JSON line with --json, else calls text.
func (o Output) Object(v any, text func(w io.Writer) error) error {
	if !o.JSON {
		return text(o.W)
	}
	return json.NewEncoder(o.W).Encode(v)
}

// Result writes the one sentence a command ends with: as it is, or with
// --json as {"type":"result","message":...}, so that a script can read
// every command's output.
func (o Output) Result(format string, args ...any) error {
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	return o.Object(map[string]string{"type": "result", "message": msg}, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, msg)
		return err
	})
}
