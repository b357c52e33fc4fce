package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/internal/boundedfile"
	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/event"
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
	exitLocked     = 4
	exitCancelled  = 130
)

// exitCode maps an error to the process's exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled), errors.Is(err, prompt.ErrInterrupted):
		return exitCancelled
	case boundedfile.IsRefused(err): // a refused file is exit 3 even where a read error is a usage one
		return exitValidation
	case runner.IsUsage(err):
		return exitUsage
	case runner.IsValidation(err):
		return exitValidation
	case runner.IsLocked(err):
		return exitLocked
	}
	return exitFailed
}

// usageError marks flag and argument mistakes found by the CLI itself.
func usageError(format string, args ...any) error {
	return runner.Usage(fmt.Errorf(format, args...))
}

// run builds the app, lets each configure change it (tests do), runs it
// and returns the exit code. Flags may stand anywhere on the command line
// (see normalize).
func run(ctx context.Context, io *term.IO, args []string, configure ...func(*cli.App)) int {
	app := newApp(io)
	for _, c := range configure {
		c(app)
	}
	cl := normalize(app, args)
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[stackGivenKey] = cl.given("stack", "s")
	var err error
	if cl.missing != "" && !cl.boolFlag("help") && !cl.boolFlag("h") {
		err = usageError("flag %s needs a value (see `%s --help`)", cl.missing, cl.command)
	} else {
		err = app.RunContext(ctx, cl.argv)
	}
	if err == nil {
		return exitOK
	}
	var silent silentError
	if !errors.As(err, &silent) && !runner.IsReported(err) {
		reportError(io, cl.boolFlag("json"), err)
	}
	return exitCode(err)
}

// silentError is an error already shown (by the summary view, say).
type silentError struct{ err error }

func (s silentError) Error() string { return s.err.Error() }
func (s silentError) Unwrap() error { return s.err }

// reportError prints the final error, as JSON with --json (with the event
// stream's version "v", as the last line of a stream); on stderr when
// stdout cannot be written (closed, say), so that it is never lost.
func reportError(io *term.IO, asJSON bool, err error) {
	if asJSON {
		doc := map[string]any{"v": event.Version, "type": "error", "message": err.Error(), "exit_code": exitCode(err)}
		if json.NewEncoder(io.Out).Encode(doc) == nil {
			return
		}
	}
	fmt.Fprintf(io.Err, "error: %s\n", err)
}

// helpDescription is the part of `runner --help` about flags and exit codes.
const helpDescription = `Every flag, global or the command's own, may stand before or after the
command and after its arguments (runner up --provider aws); -- ends the flags.
A flag given twice keeps its later value.

Exit codes: 0 success; 1 an operation failed; 2 usage error; 3 validation error
(config missing or invalid, incorrect passphrase); 4 the stack is held by
another operation (the holder is named; wait and try again); 130 interrupted.`

func newApp(io *term.IO) *cli.App {
	app := &cli.App{
		Name:                 "runner",
		Usage:                "stand up a whole environment of infrastructure projects in dependency order",
		UsageText:            "runner COMMAND [flags] [args]",
		Description:          helpDescription,
		Version:              version,
		HideVersion:          true,
		EnableBashCompletion: true,
		Writer:               io.Out,
		ErrWriter:            io.Err,
		Flags:                globalFlags(""),
		ExitErrHandler:       func(*cli.Context, error) {}, // exit codes are decided in run
		OnUsageError:         onUsageError,
		Action:               helpOrUnknown("runner"),
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
			pluginCommand(io),
			versionCommand(io),
			serveCommand(io),
			eksTokenCommand(io),
		},
	}
	setDefaults(app.Commands, app.OnUsageError, "runner")
	return app
}

// onUsageError turns urfave/cli's flag errors into usage errors (exit 2)
// naming the command whose help lists its flags.
func onUsageError(c *cli.Context, err error, _ bool) error {
	name := "runner"
	if c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = unknownFlag(f, name)
	}
	if f, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = fmt.Sprintf("flag %s needs a value", dashed(f))
	}
	return usageError("%s (see `%s --help`)", msg, name)
}

// unknownFlag says that command has no flag named f, and how to pass an
// argument that starts with a dash.
func unknownFlag(f, command string) string {
	msg := fmt.Sprintf("unknown flag %s for `%s`", dashed(f), command)
	if _, err := strconv.ParseFloat(f, 64); err == nil {
		msg += fmt.Sprintf("; put `--` before an argument that starts with a dash (`-- -%s`)", f)
	}
	return msg
}

// dashed writes a flag name as users type it: -s, --stack.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// setDefaults gives every command the global flags (so that they may
// follow the command), the app's usage-error handler, and, to a command
// without an action of its own (a group of subcommands), one that rejects
// an unknown subcommand. A command without subcommands takes no `help`
// subcommand, so that `runner config set help x` sets the key help.
func setDefaults(cmds []*cli.Command, onUsage cli.OnUsageErrorFunc, parent string) {
	for _, c := range cmds {
		c.Flags = append(c.Flags, globalFlags(globalCategory)...)
		c.OnUsageError = onUsage
		if c.Action == nil {
			c.Action = helpOrUnknown(parent + " " + c.Name)
		}
		c.HideHelpCommand = len(c.Subcommands) == 0
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
