package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
)

// Stacks is the workspace as the stack commands see it: they may work on a
// stack other than the selected one and must not create the environment
// file. Its Session holds the options, environment file, provider and
// backend, with no stack chosen; session gives the Session of one stack.
type Stacks struct {
	*Session
	// Selected is the environment file's PULUMI_STACK ("" when none).
	Selected string
}

// OpenStacks opens the workspace for the stack commands: its environment
// file (read, not written), provider and backend.
func OpenStacks(opts Options) (*Stacks, error) {
	ws, env, err := openEnv(opts)
	if err != nil {
		return nil, err
	}
	s := &Session{Opts: opts, Workspace: ws, Env: env}
	if _, err := s.Backend(); err != nil {
		return nil, err
	}
	if err := s.openProvider(); err != nil {
		return nil, err
	}
	return &Stacks{Session: s, Selected: env.Values[config.StackVar]}, nil
}

// Stack returns the stack the command is about: --stack, else the selected
// one; with neither, the refusal names the workspace's stacks (exit 3).
func (s *Stacks) Stack() (string, error) {
	if s.Opts.Stack != "" {
		return s.Opts.Stack, nil
	}
	if s.Selected != "" {
		return s.Selected, nil
	}
	_, _, err := refuseNoStack(s.Opts, s.Workspace, s.Env)
	return "", err
}

// Projects returns the projects of stack: the provider's, in execution
// order, then any other project that has state there.
func (s *Stacks) Projects(ctx context.Context, stack string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Provider.Projects {
		out = append(out, p.Name)
		seen[p.Name] = true
	}
	stored, err := s.backend.Projects(ctx, stack)
	if err != nil {
		return nil, err
	}
	for _, p := range stored {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// Crypter opens the passphrase crypter of stack's config file.
func (s *Stacks) Crypter(stack string) (*config.Crypter, error) {
	sess, err := s.session(stack)
	if err != nil {
		return nil, err
	}
	return s.openCrypterOf(sess, stack)
}

func (s *Stacks) openCrypterOf(sess *Session, stack string) (*config.Crypter, error) {
	c, err := sess.openCrypter(false, false)
	if errors.Is(err, errNoSalt) {
		return nil, Invalid(fmt.Errorf("stack %s has no encryptionsalt in %s; create the stack with `runner stack init %s`", stack, sess.ConfigPath, stack))
	}
	return c, err
}

// crypterBesides opens stack's crypter as Crypter does, not checking the
// passphrase against what project's state records: an import replaces
// that state, and one another writer (the Pulumi CLI) encrypted with a
// salt the passphrase does not open would otherwise refuse its own repair.
func (s *Stacks) crypterBesides(ctx context.Context, stack, project string) (*config.Crypter, error) {
	states, err := s.backend.StackSecrets(ctx, stack)
	if err != nil {
		return nil, Invalid(fmt.Errorf("reading how the state of stack %s is encrypted: %w", stack, err))
	}
	others := slices.DeleteFunc(states, func(st backend.StateSecrets) bool { return st.Project == project })
	sess, err := s.session(stack)
	if err != nil {
		return nil, err
	}
	sess.states = &others
	return s.openCrypterOf(sess, stack)
}

// session is the Session of stack: the workspace's, with the stack's
// config.
func (s *Stacks) session(stack string) (*Session, error) {
	path := StackConfigPath(s.Workspace, stack)
	cfg, err := config.LoadStack(path)
	if err != nil {
		return nil, Invalid(err)
	}
	return &Session{Opts: s.Opts, Workspace: s.Workspace, Env: s.Env, Provider: s.Provider, Graph: s.Graph,
		StackName: stack, Config: cfg, ConfigPath: path, backend: s.backend}, nil
}

// Init creates stack's config with a fresh encryptionsalt and selects it.
func (s *Stacks) Init(stack string) (string, error) {
	if !config.ValidStackName(stack) {
		return "", Usage(fmt.Errorf("%q is not a valid stack name: %s", stack, config.StackNameRule))
	}
	path := StackConfigPath(s.Workspace, stack)
	if _, err := os.Stat(path); err == nil {
		return "", fmt.Errorf("stack %s already exists (%s); select it with `runner stack select %s`", stack, path, stack)
	}
	sess, err := s.session(stack)
	if err != nil {
		return "", err
	}
	// Writes the file with its encryptionsalt (asks twice on a terminal).
	if _, err := sess.Crypter(); err != nil {
		return "", err
	}
	return path, s.Select(stack)
}

// Select writes PULUMI_STACK=stack in the environment file.
func (s *Stacks) Select(stack string) error {
	env, err := config.LoadEnv(EnvFilePath(s.Opts, s.Workspace))
	if err != nil {
		return Usage(err)
	}
	if err := env.SetStack(stack); err != nil {
		return Usage(err)
	}
	s.Selected = stack
	return nil
}
