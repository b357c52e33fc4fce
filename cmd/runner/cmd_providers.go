package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func providersCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:    "providers",
		Aliases: []string{"list-providers"},
		Usage:   "list the infrastructure providers",
		Action: func(c *cli.Context) error {
			if err := checkArgs(c, 0, "providers"); err != nil {
				return err
			}
			return runner.ListProviders(options(c, io))
		},
	}
}
