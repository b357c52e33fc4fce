package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func validateCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check the environment file and stack config for the provider; ask for what is missing",
		Action: func(c *cli.Context) error {
			if err := checkArgs(c, 0, "validate"); err != nil {
				return err
			}
			return runner.ValidateConfig(c.Context, options(c, io))
		},
	}
}
