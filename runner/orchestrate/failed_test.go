package orchestrate

import (
	"errors"
	"fmt"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
)

// TestFailedErrKeepsHeldLocks checks that a run whose every failed project
// met a held lock says so through errors.As (exit code 4), and that one
// real failure among them hides the locks (exit code 1).
func TestFailedErrKeepsHeldLocks(t *testing.T) {
	held := func(p string) error {
		return fmt.Errorf("up %s: locking stack dev: %w", p, &backend.LockedError{Project: p, Stack: "dev"})
	}
	tests := []struct {
		name   string
		causes []error
		locked bool
	}{
		{"one held lock", []error{held("network")}, true},
		{"two held locks", []error{held("network"), held("ca")}, true},
		{"a held lock and a failure", []error{held("network"), errors.New("up ca: create: boom")}, false},
		{"a failure", []error{errors.New("boom")}, false},
	}
	for _, tt := range tests {
		err := failedErr("up: project network failed", tt.causes)
		var l *backend.LockedError
		if got := errors.As(err, &l); got != tt.locked {
			t.Errorf("%s: held lock found %v, want %v", tt.name, got, tt.locked)
		}
		if !errors.Is(err, ErrFailed) {
			t.Errorf("%s: %v does not wrap ErrFailed", tt.name, err)
		}
		if want := "up: project network failed: the operation failed"; err.Error() != want {
			t.Errorf("%s: message %q, want %q", tt.name, err, want)
		}
	}
}

// TestFailedErrKeepsMissingConfig checks that a run whose every failed
// project lacked provider config wraps their *resource.MissingConfigError
// (exit code 3), and that any other failure among them hides it.
func TestFailedErrKeepsMissingConfig(t *testing.T) {
	missing := func(p string) error {
		return fmt.Errorf("up %s: provider default: configuring it: %w", p,
			&resource.MissingConfigError{Package: "aws", Keys: []resource.MissingKey{{Key: "region"}}})
	}
	held := fmt.Errorf("up ca: %w", &backend.LockedError{Project: "ca", Stack: "dev"})
	refused := fmt.Errorf("up vpc: provider default: configuring it: %w",
		&resource.ConfigureError{Package: "aws", Err: errors.New("no valid credential sources found"), Help: "set AWS_PROFILE"})
	tests := []struct {
		name    string
		causes  []error
		missing bool
	}{
		{"one project", []error{missing("network")}, true},
		{"refused config", []error{refused}, true},
		{"missing and refused config", []error{missing("network"), refused}, true},
		{"refused config and a failure", []error{refused, errors.New("boom")}, false},
		{"two projects", []error{missing("network"), missing("ca")}, true},
		{"missing config and a failure", []error{missing("network"), errors.New("boom")}, false},
		{"missing config and a held lock", []error{missing("network"), held}, false},
		{"no causes", nil, false},
	}
	for _, tt := range tests {
		err := failedErr("up: project network failed", tt.causes)
		var m *resource.MissingConfigError
		var r *resource.ConfigureError
		if got := errors.As(err, &m) || errors.As(err, &r); got != tt.missing {
			t.Errorf("%s: missing config found %v, want %v", tt.name, got, tt.missing)
		}
		if !errors.Is(err, ErrFailed) {
			t.Errorf("%s: %v does not wrap ErrFailed", tt.name, err)
		}
	}
}
