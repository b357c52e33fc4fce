package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner/term"
)

// stackCommand holds the per-stack commands (issue: stack commands).
func stackCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:        "stack",
		Usage:       "manage stacks and their per-project state",
		Subcommands: stackSubcommands(io),
	}
}
