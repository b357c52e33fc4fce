package runner

import (
	"context"
	"errors"

	"github.com/runnerhq/runner/runner/orchestrate"
)

// checkPluginsAndConfig checks that the provider's plugins are installed.
// When some are not, the stack config is checked too, without asking or
// writing anything (for validate, preview and up: the operations that
// validate), so that one run names the missing plugins and every missing
// or invalid config value, each with the command that fixes it.
func (s *Session) checkPluginsAndConfig(ctx context.Context, operation string) error {
	perr := s.checkPlugins()
	var missing *MissingPluginsError
	if !errors.As(perr, &missing) {
		return perr
	}
	switch operation {
	case "validate", orchestrate.Preview, orchestrate.Up:
	default:
		return perr
	}
	if verr := s.configProblems(ctx); verr != nil {
		return Invalid(errors.Join(perr, verr))
	}
	return perr
}

// configProblems validates the stack config as a listing: no question is
// asked and nothing is saved.
func (s *Session) configProblems(ctx context.Context) error {
	dry := s.dryRun
	s.dryRun = true
	defer func() { s.dryRun = dry }()
	_, err := s.Validate(ctx)
	return err
}

// noStackPreview is a preview of a stack that does not exist (noStack, a
// *NoStackError): besides that, it names the plugins that are missing and
// the config values the stack would need, writing nothing.
func noStackPreview(ctx context.Context, opts Options, noStack error) error {
	s, err := Open(opts) // reads only: nothing is saved below
	if err != nil {
		return noStack
	}
	problems := []error{noStack}
	if err := s.checkPlugins(); err != nil {
		problems = append(problems, err)
	}
	if err := s.configProblems(ctx); err != nil {
		problems = append(problems, err)
	}
	return Invalid(errors.Join(problems...))
}

// accepted is an up whose plan is accepted: the defaults validation staged
// are saved, and the stack is recorded in the environment file.
func (s *Session) accepted(o OpOptions) error {
	if o.Operation != orchestrate.Up {
		return nil
	}
	if err := s.saveConfig(); err != nil {
		return err
	}
	return s.RecordStack()
}
