package runner

import (
	"errors"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/internal/boundedfile"
)

// UsageError is a mistake in how runner was called (exit code 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ValidationError is config that is missing or invalid, or a wrong
// passphrase (exit code 3).
type ValidationError struct{ Err error }

func (e *ValidationError) Error() string { return e.Err.Error() }
func (e *ValidationError) Unwrap() error { return e.Err }

// Usage wraps err as a usage error.
func Usage(err error) error { return &UsageError{Err: err} }

// Invalid wraps err as a validation error.
func Invalid(err error) error { return &ValidationError{Err: err} }

// IsUsage reports whether err is a usage error.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// IsValidation reports whether err is a validation error: a
// *ValidationError, or a provider plugin's *resource.MissingConfigError
// (its message names the `runner config set` command of each key),
// *resource.ConfigureError (the plugin refused its configuration; the
// message says what to set) or a file refused by boundedfile (not a
// regular file, or over its kind's limit).
func IsValidation(err error) bool {
	var v *ValidationError
	var m *resource.MissingConfigError
	var c *resource.ConfigureError
	var u *backend.UnavailableError
	var nc *bucket.NoConditionalWritesError
	var up *resource.UnavailablePluginError
	return errors.As(err, &v) || errors.As(err, &up) || errors.As(err, &m) || errors.As(err, &c) || boundedfile.IsRefused(err) ||
		errors.As(err, &u) || errors.As(err, &nc)
}

// IsLocked reports whether err is a stack held by another operation (exit
// code 4): the error names the holder, and a script may wait and try again.
// An operation in which some project failed for another reason is not. A
// run that lost its lock meanwhile (backend.ErrLockLost, ErrFenced) is.
func IsLocked(err error) bool {
	var l *backend.LockedError
	return errors.As(err, &l) || errors.Is(err, backend.ErrLockLost) || errors.Is(err, backend.ErrFenced)
}

// ReportedError is an error the command's output already showed (an
// operation's summary names the projects that failed): the CLI exits with
// its code and prints nothing more.
type ReportedError struct{ Err error }

func (e *ReportedError) Error() string { return e.Err.Error() }
func (e *ReportedError) Unwrap() error { return e.Err }

// IsReported reports whether err was already shown to the user.
func IsReported(err error) bool {
	var r *ReportedError
	return errors.As(err, &r)
}
