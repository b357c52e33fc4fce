package cluster

import (
	"errors"

	"github.com/runnerhq/runner/engine"
)

// notWritten is a placeholder of a program being written in this session.
func notWritten(name string) engine.Program {
	return func(*engine.Context) error { return errors.New("the " + name + " program is not written yet") }
}

// The layers' programs (placeholders, each replaced by its own file).
var (
	Sirius = notWritten("sirius")
)
