// Package runner is the orchestration layer behind the command line: it
// opens a workspace (environment file, stack config, provider, backend),
// validates and prompts for config, and runs operations across the
// provider's project graph.
package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/providers/builtin"
	"github.com/runnerhq/runner/providers/workspace"
	"github.com/runnerhq/runner/runner/graph"
	"github.com/runnerhq/runner/runner/orchestrate"
	"github.com/runnerhq/runner/runner/prompt"
	"github.com/runnerhq/runner/runner/term"
)

// Options are the global flags.
type Options struct {
	Root  string
	Stack string
	// StackFromEnv says Stack comes from the environment variable
	// PULUMI_STACK, not from --stack.
	StackFromEnv   bool
	Provider       string
	EnvFile        string
	Backend        string
	NonInteractive bool
	JSON           bool
	Debug          bool
	IO             *term.IO
	// Asker asks questions (nil: survey on the terminal).
	Asker prompt.Asker
	// Executable is the runner binary (nil: os.Executable).
	Executable string
	// Providers are the providers to choose from (nil: the built-in ones).
	Providers *providers.Registry
	// Version is runner's version, recorded in the snapshots it writes.
	Version string
	// KeyIterations is the PBKDF2 iteration count of the passphrase key
	// (0: config.DefaultIterations, as Pulumi). Only tests lower it.
	KeyIterations int
	// Plugins returns the resource plugins of a run, given the environment
	// what runner starts runs with (nil: plugins.Builtin).
	Plugins func(environ []string) []resource.Plugin
	// Backends serves the backend URL's scheme (nil: Backends()).
	Backends backend.Registry
}

// registry returns the providers of opts: the built-in ones and the
// environments of the workspace file (runner.yaml), whose problems are a
// validation error naming file and line.
func registry(opts Options) (*providers.Registry, error) {
	if opts.Providers != nil {
		return opts.Providers, nil
	}
	ws, err := Workspace(opts)
	if err != nil {
		return nil, err
	}
	list := builtin.Providers()
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	user, err := workspace.Load(ws, names)
	if err != nil {
		return nil, Invalid(err)
	}
	r, err := providers.NewRegistry(builtin.Default, append(list, user...)...)
	if err != nil {
		return nil, Invalid(err)
	}
	return r, nil
}

// Session is an opened workspace for one stack and provider.
type Session struct {
	Opts       Options
	Workspace  string
	Env        *config.EnvFile
	StackName  string
	Provider   *providers.Provider
	Graph      *graph.Graph
	ConfigPath string
	Config     *config.Stack

	backend  backend.Store
	crypter  *config.Crypter
	keyShown atomic.Bool             // a program's run failed with the passphrase check's error (keycheck.go)
	pass     *config.Passphrase      // the passphrase, once had
	states   *[]backend.StateSecrets // what the stack's states record of their secrets, once read
	// staged are config changes made by validation, written together by
	// saveConfig.
	staged []func(*config.Stack) error
	// dryRun makes validation check without saving (listing what a stack
	// that is not selected yet would need).
	dryRun bool
	// recordStack says that the environment file does not name the stack
	// yet: the commands that write (config, up) record it (RecordStack).
	recordStack bool
}

// ConfigDir is where a workspace keeps its config, as in a MARA checkout.
const ConfigDir = "config/pulumi"

// Workspace returns the absolute workspace folder of opts.
func Workspace(opts Options) (string, error) {
	root := opts.Root
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("resolving the workspace folder %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err == nil && !st.IsDir() {
		return "", Usage(fmt.Errorf("the workspace %s is not a folder; pass --root with the folder of your workspace", abs))
	}
	if err != nil {
		return "", Usage(fmt.Errorf("the workspace folder %s does not exist; create it or pass --root", abs))
	}
	return abs, nil
}

// EnvFilePath returns the environment file of opts.
func EnvFilePath(opts Options, workspace string) string {
	if opts.EnvFile != "" {
		if filepath.IsAbs(opts.EnvFile) {
			return opts.EnvFile
		}
		return filepath.Join(workspace, opts.EnvFile)
	}
	return filepath.Join(workspace, ConfigDir, "environment")
}

// StackConfigPath returns the stack config file of a stack.
func StackConfigPath(workspace, stack string) string {
	return filepath.Join(workspace, ConfigDir, "Pulumi."+stack+".yaml")
}

// Open opens the workspace for a command that needs a stack: it reads the
// environment file, resolves the stack, the provider and its graph, and
// reads the stack config. It writes nothing: a stack that does not exist
// yet is created by the first save (up, validate, config set), which also
// records it in the environment file (RecordStack).
func Open(opts Options) (*Session, error) { return open(opts, true, chooseStack) }

// OpenRead opens the workspace as Open does, for a command that reads the
// stack config (config get, config ls): with no stack selected it asks
// for none and lists nothing a new stack needs, but names the stacks the
// workspace has and how to select one (exit 3).
func OpenRead(opts Options) (*Session, error) { return open(opts, true, refuseNoStack) }

// OpenExisting opens the workspace as Open does, for a command that works
// on a stack that must already exist (preview, refresh, destroy): a stack
// with neither a config file nor state is a *NoStackError (exit 3); no
// environment file, PULUMI_STACK line or backend folder is written.
func OpenExisting(opts Options) (*Session, error) { return open(opts, false, refuseNoStack) }

// OpenFor opens the workspace for an operation: up may create its stack
// (Open); preview, refresh and destroy work on one that exists
// (OpenExisting).
func OpenFor(operation string, opts Options) (*Session, error) {
	if operation == orchestrate.Up {
		return Open(opts)
	}
	return OpenExisting(opts)
}

// NoStackError is a stack that has neither a config file nor state.
type NoStackError struct {
	Stack, ConfigPath, Backend string
}

func (e *NoStackError) Error() string {
	return fmt.Sprintf("stack %s does not exist in this workspace: there is no %s and no state for it in %s; create it with `runner stack init %s`, or with `runner --stack %s up`, which asks for its config",
		e.Stack, e.ConfigPath, e.Backend, e.Stack, e.Stack)
}

// openEnv returns the workspace of opts and its environment file, read
// (and its warnings printed) but not applied anywhere: its values reach what
// runner starts through Session.Environ.
func openEnv(opts Options) (string, *config.EnvFile, error) {
	ws, err := Workspace(opts)
	if err != nil {
		return "", nil, err
	}
	env, err := config.LoadEnv(EnvFilePath(opts, ws))
	if err != nil {
		return "", nil, Usage(err)
	}
	warnFile(opts, env.Warnings)
	return ws, env, nil
}

// open opens the workspace's stack; when none is selected, noStack names
// it or refuses. With create false the stack must exist.
func open(opts Options, create bool, noStack func(Options, string, *config.EnvFile) (string, bool, error)) (*Session, error) {
	ws, env, err := openEnv(opts)
	if err != nil {
		return nil, err
	}
	stack, record, err := env.ResolveStack(opts.Stack)
	markStackSource(err, opts)
	if errors.Is(err, config.ErrNoStack) {
		if stack, record, err = noStack(opts, ws, env); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, Usage(err)
	}
	if !config.ValidStackName(stack) {
		return nil, Usage(fmt.Errorf("%q is not a valid stack name: %s", stack, config.StackNameRule))
	}
	if !create {
		if err := mustExist(opts, ws, stack); err != nil {
			return nil, err
		}
	}
	s := &Session{Opts: opts, Workspace: ws, Env: env, StackName: stack, recordStack: record}
	if err := s.openProvider(); err != nil {
		return nil, err
	}
	s.ConfigPath = StackConfigPath(ws, stack)
	if s.Config, err = config.LoadStack(s.ConfigPath); err != nil {
		return nil, Invalid(err)
	}
	return s, nil
}

// RecordStack writes the session's stack into the environment file when
// the file names none yet, as MARA does. Only the commands that write call
// it (up and the config edits); read-only ones leave the file as it is.
func (s *Session) RecordStack() error {
	if !s.recordStack {
		return nil
	}
	if err := s.Env.RecordStack(s.StackName); err != nil {
		markStackSource(err, s.Opts)
		return Usage(err)
	}
	s.recordStack = false
	return nil
}

// mustExist fails with a *NoStackError (a validation error) unless stack
// has a config file or state, creating nothing to find out.
func mustExist(opts Options, ws, stack string) error {
	if !config.ValidStackName(stack) {
		return Usage(fmt.Errorf("%q is not a valid stack name: %s", stack, config.StackNameRule))
	}
	path := StackConfigPath(ws, stack)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	b, err := OpenBackend(opts, ws)
	if err != nil {
		return err
	}
	projects, err := b.Projects(context.TODO(), stack)
	if err != nil {
		return err
	}
	if len(projects) == 0 {
		return Invalid(&NoStackError{Stack: stack, ConfigPath: path, Backend: backend.RedactURL(BackendURL(opts, ws))})
	}
	return nil
}

func (s *Session) openProvider() error {
	p, err := provider(s.Opts, s.Opts.Provider)
	if err != nil {
		return err
	}
	g, err := graph.Build(p)
	if err != nil {
		return err
	}
	s.Provider, s.Graph = p, g
	return nil
}

// DefaultProvider is the provider of a command without --provider (the
// --provider flag's default).
const DefaultProvider = builtin.Default

// provider returns the provider named name among those of opts, or a
// usage error listing them.
func provider(opts Options, name string) (*providers.Provider, error) {
	reg, err := registry(opts)
	if err != nil {
		return nil, err
	}
	p, err := reg.Get(name)
	if err != nil {
		return nil, Usage(err)
	}
	return p, nil
}

// BackendURL returns the backend URL of opts for the workspace.
func BackendURL(opts Options, workspace string) string {
	if opts.Backend != "" {
		return opts.Backend
	}
	return "file://" + filepath.Join(workspace, ".runner")
}

// OpenBackend opens the backend of opts, chosen by its URL's scheme from
// opts.Backends. Opening it writes nothing. A scheme no backend serves is
// a validation error (exit 3) listing the schemes served.
func OpenBackend(opts Options, workspace string) (backend.Store, error) {
	reg := opts.Backends
	if reg == nil {
		reg = Backends()
	}
	b, err := reg.Open(context.TODO(), BackendURL(opts, workspace))
	var unknown *backend.UnknownSchemeError
	var unavailable *backend.UnavailableError
	if errors.As(err, &unknown) || errors.As(err, &unavailable) {
		return nil, Invalid(fmt.Errorf("%w (--backend or RUNNER_BACKEND_URL)", err))
	}
	if err != nil {
		return nil, Usage(fmt.Errorf("opening the backend: %w", err))
	}
	return b, nil
}

// Backend returns the session's backend.
func (s *Session) Backend() (backend.Store, error) {
	if s.backend == nil {
		b, err := OpenBackend(s.Opts, s.Workspace)
		if err != nil {
			return nil, err
		}
		s.backend = b
	}
	return s.backend, nil
}

// IO returns the session's streams.
func (s *Session) IO() *term.IO {
	if s.Opts.IO == nil {
		s.Opts.IO = term.System()
	}
	if s.Opts.NonInteractive {
		s.Opts.IO.NonInteractive = true
	}
	return s.Opts.IO
}

func (s *Session) asker() prompt.Asker {
	if s.Opts.Asker != nil {
		return s.Opts.Asker
	}
	return prompt.Survey{IO: s.IO()}
}

// DataDir is where the provider's local files live for the stack.
func (s *Session) DataDir() string {
	return filepath.Join(s.Workspace, ".runner", "data", s.Provider.Name, s.StackName)
}

// Runtime is what the provider's programs and hooks know of the run.
func (s *Session) Runtime() providers.Runtime {
	exe := s.Opts.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	return providers.Runtime{Workspace: s.Workspace, DataDir: s.DataDir(), Executable: exe, Stack: s.StackName,
		Environ: environList(s.Environ())}
}

// markStackSource makes a *config.StackMismatchError in err say where the
// stack of opts came from: --stack, or the environment variable
// PULUMI_STACK.
func markStackSource(err error, opts Options) {
	var m *config.StackMismatchError
	if errors.As(err, &m) {
		m.FromEnv = opts.StackFromEnv
	}
}
