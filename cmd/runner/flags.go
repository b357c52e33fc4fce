package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

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
		&cli.StringFlag{Name: "provider", Aliases: []string{"p"}, Value: "local", Category: category, Usage: "the infrastructure provider `NAME`"},
		&cli.StringFlag{Name: "env-file", Category: category, Usage: "the environment `FILE` (default: <root>/config/pulumi/environment)"},
		&cli.StringFlag{Name: "backend", EnvVars: []string{"RUNNER_BACKEND_URL"}, Category: category, Usage: "where state is kept, as a `URL` (default: file://<root>/.runner)"},
		&cli.BoolFlag{Name: "non-interactive", Category: category, Usage: "never prompt (implied without a terminal or when CI is set)"},
		&cli.BoolFlag{Name: "json", Category: category, Usage: "print JSON: one event per line, or one document for listings"},
		&cli.BoolFlag{Name: "debug", Aliases: []string{"d"}, Category: category, Usage: "print more about what runner does"},
	}
}

// options turns the global flags into runner.Options.
func options(c *cli.Context, io *term.IO) runner.Options {
	if c.Bool("non-interactive") {
		io.NonInteractive = true
	}
	exe, _ := os.Executable()
	return runner.Options{
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
		Backends:       runner.Backends(),
	}
}

// say prints the one sentence a command ends with: as it is, or with
// --json as {"type":"result","message":...}, so that every command's
// output can be read by a script.
func say(c *cli.Context, w io.Writer, format string, args ...any) error {
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	if c.Bool("json") {
		return json.NewEncoder(w).Encode(map[string]string{"type": "result", "message": msg})
	}
	_, err := fmt.Fprintln(w, msg)
	return err
}
