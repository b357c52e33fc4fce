package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

// globalCategory heads the global flags in `runner COMMAND --help`.
const globalCategory = "GLOBAL OPTIONS"

// globalFlags returns new global flags in category. Every command gets its
// own copy, so that they may stand before or after the command.
func globalFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "root", Value: ".", Category: category, Usage: "the workspace `DIR`"},
		&cli.StringFlag{Name: "stack", Aliases: []string{"s"}, EnvVars: []string{"PULUMI_STACK"}, Category: category, Usage: "the stack `NAME` (default: PULUMI_STACK of the environment file)"},
		&cli.StringFlag{Name: "provider", Aliases: []string{"p"}, Value: runner.DefaultProvider, Category: category, Usage: "the infrastructure provider `NAME`"},
		&cli.StringFlag{Name: "env-file", Category: category, Usage: "the environment `FILE` (default: <root>/config/pulumi/environment)"},
		&cli.StringFlag{Name: "backend", EnvVars: []string{"RUNNER_BACKEND_URL"}, Category: category, Usage: "where state is kept, as a `URL` (default: file://<root>/.runner)"},
		&cli.BoolFlag{Name: "non-interactive", Category: category, Usage: "never prompt (implied without a terminal or when CI is set)"},
		&cli.BoolFlag{Name: "json", Category: category, Usage: "print JSON: one event per line, or one document for listings"},
		&cli.BoolFlag{Name: "debug", Aliases: []string{"d"}, Category: category, Usage: "print more about what runner does"},
	}
}

// options turns the global flags into runner.Options.
// keyIterationsKey is the app.Metadata key of the PBKDF2 iteration count of
// passphrase keys (an int; unset: config.DefaultIterations). Only tests set
// it, to run faster.
const keyIterationsKey = "keyIterations"

// stackGivenKey is the app.Metadata key that says --stack (-s) is on the
// command line; without it a stack comes from PULUMI_STACK.
const stackGivenKey = "stackGiven"

func options(c *cli.Context, io *term.IO) runner.Options {
	keyIterations, _ := c.App.Metadata[keyIterationsKey].(int)
	if c.Bool("non-interactive") {
		io.NonInteractive = true
	}
	exe, _ := os.Executable()
	stackGiven, _ := c.App.Metadata[stackGivenKey].(bool)
	return runner.Options{
		StackFromEnv:   !stackGiven && c.String("stack") != "",
		Root:           c.String("root"),
		Stack:          c.String("stack"),
		Provider:       c.String("provider"),
		EnvFile:        c.String("env-file"),
		Backend:        c.String("backend"),
		NonInteractive: c.Bool("non-interactive"),
		JSON:           c.Bool("json"),
		Debug:          c.Bool("debug"),
		IO:             io,
		Executable:     exe,
		Version:        version,
		KeyIterations:  keyIterations,
		Backends:       runner.Backends(),
	}
}

// say prints the one sentence a command ends with: as it is, or with
// --json as {"type":"result","message":...} (runner.Output.Result).
func say(c *cli.Context, w io.Writer, format string, args ...any) error {
	return runner.Output{W: w, JSON: c.Bool("json")}.Result(format, args...)
}
