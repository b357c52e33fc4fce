package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner/term"
)

// stackSubcommands lists the stack subcommands.
func stackSubcommands(io *term.IO) []*cli.Command {
	return stackCommands(io)
}
