package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/runner/term"
)

// editError marks an error of the edit itself (a bad key), as opposed to
// one of reading or writing the file.
type editError struct{ err error }

func (e *editError) Error() string { return e.err.Error() }
func (e *editError) Unwrap() error { return e.err }

// UpdateConfig changes the stack config: under the file's lock, from the
// file as it is now (so concurrent commands' changes are kept), written
// atomically. The session's config becomes what was written, and the stack
// is recorded in the environment file (RecordStack). A file that does not
// parse (or has a key twice) is refused and left unchanged.
func (s *Session) UpdateConfig(edit func(*config.Stack) error) error {
	st, err := config.UpdateStack(s.ConfigPath, func(st *config.Stack) error {
		if err := s.sameSalt(st); err != nil {
			return err
		}
		if err := edit(st); err != nil {
			return &editError{err}
		}
		return nil
	})
	var ee *editError
	if errors.As(err, &ee) {
		return Usage(ee.err)
	}
	if err != nil {
		return fileError(err)
	}
	s.Config = st
	return s.RecordStack()
}

// sameSalt makes sure values encrypted by the session's crypter go into a
// file with the same salt.
func (s *Session) sameSalt(st *config.Stack) error {
	if s.crypter == nil {
		return nil
	}
	switch cur := st.EncryptionSalt(); {
	case cur == "":
		st.SetEncryptionSalt(s.crypter.EncryptionSalt())
	case cur != s.crypter.EncryptionSalt():
		return Invalid(fmt.Errorf("the encryptionsalt of %s was changed by another command while this one ran; run this command again", s.ConfigPath))
	}
	return nil
}

// SetConfig sets a config value (path: a --path key; secret: encrypted)
// and saves it, as `runner config set` does. A stack config without an
// encryptionsalt gets one first (see Crypter).
func (s *Session) SetConfig(ctx context.Context, key, value string, secret, path bool) error {
	var c *config.Crypter
	if secret || s.Config.EncryptionSalt() == "" {
		var err error
		if c, err = s.Crypter(); err != nil {
			return err
		}
	}
	return s.UpdateConfig(func(st *config.Stack) error {
		return st.Set(ctx, key, value, secret, path, c)
	})
}

// RemoveConfig removes a config value and saves the file, as `runner
// config rm` does. Removing a key that is not set is an error, and
// writes nothing.
func (s *Session) RemoveConfig(key string, path bool) error {
	notSet := fmt.Errorf("the config key %s is not set on stack %s", key, s.StackName)
	if _, ok := s.entry(key); !ok && !path {
		return notSet // not even the file's lock is taken
	}
	err := s.UpdateConfig(func(st *config.Stack) error {
		removed, err := st.Remove(key, path)
		if err == nil && !removed {
			return notSet
		}
		return err
	})
	if errors.Is(err, notSet) {
		return notSet
	}
	return err
}

// stage applies edit to the session's config now and keeps it for
// saveConfig, which writes every staged change at once.
func (s *Session) stage(edit func(*config.Stack) error) error {
	if err := edit(s.Config); err != nil {
		return err
	}
	s.staged = append(s.staged, edit)
	return nil
}

// saveConfig writes the staged changes into the stack config, under its
// lock, over the file as it is now.
func (s *Session) saveConfig() error {
	if len(s.staged) == 0 || s.dryRun {
		return nil
	}
	edits := s.staged
	err := s.UpdateConfig(func(st *config.Stack) error {
		for _, e := range edits {
			if err := e(st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.staged = nil
	return nil
}

// warnFile prints what a file does that runner accepts but the user should
// hear about, once per command, on stderr (so --json output stays JSON).
func warnFile(opts Options, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	errOut := term.System().Err
	if opts.IO != nil {
		errOut = opts.IO.Err
	}
	for _, w := range warnings {
		fmt.Fprintln(errOut, "warning: "+w)
	}
}
