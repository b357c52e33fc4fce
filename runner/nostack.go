package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/runner/prompt"
)

// placeholderStack stands for the stack name in the commands listed when no
// stack is selected.
const placeholderStack = "<NAME>"

// NoStackSelectedError is a deploying command (up, validate) run with no
// stack selected and no terminal to ask for one. It lists, besides the
// missing name, the config values a new stack of the provider would be
// asked for, so that one run names everything to set.
type NoStackSelectedError struct {
	// Missing lists the config values a new stack needs (nil: none).
	Missing *prompt.MissingConfigError
}

func (e *NoStackSelectedError) Error() string {
	msg := config.ErrNoStack.Error()
	if e.Missing != nil {
		msg += "\n" + e.Missing.Error()
	}
	return msg
}

func (e *NoStackSelectedError) Unwrap() error { return config.ErrNoStack }

// chooseStack names the stack of a deploying command when none is
// selected: on a terminal it asks (as MARA's runner does), and says the
// answer is to be recorded in the environment file; without one it fails with a
// *NoStackSelectedError listing everything a new stack needs.
func chooseStack(opts Options, ws string, env *config.EnvFile) (string, bool, error) {
	probe := &Session{Opts: opts, Workspace: ws, Env: env, StackName: placeholderStack, dryRun: true}
	if !probe.IO().CanPrompt() {
		return "", false, newStackListing(probe)
	}
	name, err := probe.asker().Input("Stack name (dev, staging, prod, ...)", "", "the environment's name; every project gets a stack of this name", func(v string) error {
		if !config.ValidStackName(v) {
			return errors.New(config.StackNameRule)
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return env.ResolveStack(name)
}

// newStackListing validates an empty config for the placeholder stack,
// writing nothing, and returns the error naming the missing stack and
// every missing value.
func newStackListing(probe *Session) error {
	if err := probe.openProvider(); err != nil {
		return err
	}
	probe.ConfigPath = filepath.Join(probe.Workspace, ConfigDir, "Pulumi."+placeholderStack+".yaml")
	cfg, err := config.ParseStack(probe.ConfigPath, nil) // an empty config: nothing is read
	if err != nil {
		return Invalid(err)
	}
	probe.Config = cfg
	// Only the provider's questions are checked, in memory: nothing here
	// waits on I/O that a cancellation could stop.
	err = probe.validate(context.Background(), &Report{})
	var missing *prompt.MissingConfigError
	if !errors.As(err, &missing) {
		missing = nil
	}
	if err != nil && missing == nil {
		return fmt.Errorf("checking what a new stack needs: %w", err)
	}
	return Invalid(&NoStackSelectedError{Missing: missing})
}

// refuseNoStack is the refusal of a command that works on a selected
// stack when none is: config.ErrNoStack (exit 3), naming the stacks the
// workspace has (config files and state) and the command that selects
// one, or, with none, the one that creates one.
func refuseNoStack(opts Options, ws string, env *config.EnvFile) (string, bool, error) {
	names := map[string]bool{}
	for _, name := range configStacks(ws) {
		names[name] = true
	}
	// The listing is advice: a backend that cannot be read leaves it to
	// the config files.
	if b, err := OpenBackend(opts, ws); err == nil {
		infos, _ := b.ListStacks(context.TODO())
		for _, info := range infos {
			names[info.Name] = true
		}
	}
	if len(names) == 0 {
		return "", false, Invalid(fmt.Errorf("%w; this workspace has no stack yet: create one with `runner stack init NAME`, or with `runner --stack NAME up`, which asks for its config", config.ErrNoStack))
	}
	sorted := slices.Sorted(maps.Keys(names))
	return "", false, Invalid(fmt.Errorf("%w; this workspace's stacks: %s (select one with `runner stack select %s`)", config.ErrNoStack, strings.Join(sorted, ", "), sorted[0]))
}

// configStacks are the stacks that have a config file in workspace ws
// (config/pulumi/Pulumi.NAME.yaml with a valid NAME).
func configStacks(ws string) []string {
	var out []string
	files, _ := filepath.Glob(filepath.Join(ws, ConfigDir, "Pulumi.*.yaml"))
	for _, f := range files {
		if name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "Pulumi."), ".yaml"); config.ValidStackName(name) {
			out = append(out, name)
		}
	}
	return out
}
