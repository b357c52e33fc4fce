// Package term is the one way to the terminal: it decides whether stdin and
// stdout are terminals, whether to use colour (NO_COLOR), and whether
// prompting is allowed, with overrides for tests.
package term

import (
	"io"
	"os"

	xterm "golang.org/x/term"
)

// IO holds the standard streams and what is known about them.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	// StdinTTY and StdoutTTY say whether the streams are terminals.
	StdinTTY, StdoutTTY bool
	// NonInteractive forbids prompting (--non-interactive, CI).
	NonInteractive bool
	// NoColor turns colour off (NO_COLOR, or not a terminal).
	NoColor bool
}

// System returns the process's streams, checked with golang.org/x/term.
func System() *IO {
	io := &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		StdinTTY:  xterm.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: xterm.IsTerminal(int(os.Stdout.Fd())),
	}
	// NO_COLOR counts when set to a non-empty value (no-color.org).
	io.NoColor = os.Getenv("NO_COLOR") != "" || !io.StdoutTTY
	if os.Getenv("CI") != "" {
		io.NonInteractive = true
	}
	return io
}

// CanPrompt reports whether questions may be asked: stdin and stdout are
// terminals and prompting is not disabled.
func (io *IO) CanPrompt() bool {
	return io.StdinTTY && io.StdoutTTY && !io.NonInteractive
}

// Color reports whether output may use ANSI colour.
func (io *IO) Color() bool { return !io.NoColor && io.StdoutTTY }

// Live reports whether the live, redrawn progress view may be used.
func (io *IO) Live() bool { return io.StdoutTTY }
