package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/runner/prompt"
)

// configMissing reports whether the session's stack config does not exist
// yet (this command would create it).
func (s *Session) configMissing() bool {
	_, err := os.Lstat(s.ConfigPath)
	return errors.Is(err, fs.ErrNotExist)
}

// dropHalfMade removes the stack config this command created (fresh: it
// did not exist when the command began) when err is an interruption (Ctrl-C
// at a prompt) and the file holds nothing but the encryptionsalt written
// before the first secret was asked: a stack the user never finished
// making leaves nothing behind. A file that holds any value is kept.
func (s *Session) dropHalfMade(fresh bool, err error) {
	if !fresh || !errors.Is(err, prompt.ErrInterrupted) && !errors.Is(err, context.Canceled) {
		return
	}
	st, lerr := config.LoadStack(s.ConfigPath)
	if lerr != nil || len(st.Keys()) > 0 || s.configMissing() {
		return
	}
	if rerr := config.RemoveStack(s.ConfigPath); rerr != nil {
		fmt.Fprintf(s.IO().Err, "warning: %s was made by this interrupted command and could not be removed: %v\n", s.ConfigPath, rerr)
		return
	}
}
