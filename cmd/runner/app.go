package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/orchestrate"
	"github.com/runnerhq/runner/runner/prompt"
	"github.com/runnerhq/runner/runner/term"
)

// Exit codes (DESIGN.md): one table, used only here.
const (
	exitOK         = 0
	exitFailed     = 1
	exitUsage      = 2
	exitValidation = 3
	exitCancelled  = 130
)

// exitCode maps an error to the process's exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled), errors.Is(err, prompt.ErrInterrupted):
		return exitCancelled
	case runner.IsUsage(err):
		return exitUsage
	case runner.IsValidation(err):
		return exitValidation
	}
	return exitFailed
}

// usageError marks flag and argument mistakes found by the CLI itself.
func usageError(format string, args ...any) error {
	return runner.Usage(fmt.Errorf(format, args...))
}

// run builds the app, runs it and returns the exit code.
func run(ctx context.Context, io *term.IO, args []string) int {
	app := newApp(io)
	err := app.RunContext(ctx, args)
	if err == nil {
		return exitOK
	}
	var silent silentError
	if !errors.As(err, &silent) {
		reportError(io, args, err)
	}
	return exitCode(err)
}

// silentError is an error already shown (by the summary view, say).
type silentError struct{ err error }

func (s silentError) Error() string { return s.err.Error() }
func (s silentError) Unwrap() error { return s.err }

// reportError prints the final error, as JSON with --json.
func reportError(io *term.IO, args []string, err error) {
	if wantsJSON(args) {
		_ = json.NewEncoder(io.Out).Encode(map[string]any{"type": "error", "message": err.Error(), "exit_code": exitCode(err)})
		return
	}
	fmt.Fprintf(io.Err, "error: %s\n", err)
}

func wantsJSON(args []string) bool {
	for _, a := range args[1:] {
		if a == "--json" || a == "--json=true" {
			return true
		}
		if a == "--" {
			break
		}
	}
	return false
}

func newApp(io *term.IO) *cli.App {
	app := &cli.App{
		Name:                 "runner",
		Usage:                "stand up a whole environment of infrastructure projects in dependency order",
		Version:              version,
		HideVersion:          true,
		EnableBashCompletion: true,
		Writer:               io.Out,
		ErrWriter:            io.Err,
		Flags:                globalFlags(),
		ExitErrHandler:       func(*cli.Context, error) {}, // exit codes are decided in run
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError("%v (see `runner --help`)", err)
		},
		Action: helpOrUnknown("runner"),
		Commands: []*cli.Command{
			providersCommand(io),
			showCommand(io),
			validateCommand(io),
			operationCommand(io, orchestrate.Preview, "plan every project, change nothing", nil),
			operationCommand(io, orchestrate.Up, "deploy every project in dependency order", nil),
			operationCommand(io, orchestrate.Refresh, "read real state back into the stacks", nil),
			operationCommand(io, orchestrate.Destroy, "tear down every project in reverse order", []string{"down"}),
			configCommand(io),
			stackCommand(io),
			versionCommand(io),
			serveCommand(io),
		},
	}
	setDefaults(app.Commands, app.OnUsageError, "runner")
	return app
}

// setDefaults gives every command the app's usage-error handler and every
// command without an action of its own (a group of subcommands) one that
// rejects an unknown subcommand.
func setDefaults(cmds []*cli.Command, onUsage cli.OnUsageErrorFunc, parent string) {
	for _, c := range cmds {
		c.OnUsageError = onUsage
		if c.Action == nil {
			c.Action = helpOrUnknown(parent + " " + c.Name)
		}
		setDefaults(c.Subcommands, onUsage, parent+" "+c.Name)
	}
}

// helpOrUnknown shows the help of a command that needs a subcommand, or
// fails with a usage error (exit 2) naming an unknown one.
func helpOrUnknown(name string) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() > 0 {
			return usageError("unknown command %q (see `%s --help`)", c.Args().First(), name)
		}
		if name == "runner" {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
}

// checkArgs fails with a usage error when a command gets more arguments
// than it takes.
func checkArgs(c *cli.Context, max int, usage string) error {
	if c.NArg() > max {
		return usageError("too many arguments: %s; usage: runner %s", strings.Join(c.Args().Slice()[max:], " "), usage)
	}
	return nil
}
