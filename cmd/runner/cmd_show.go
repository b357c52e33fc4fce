package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func showCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:    "show",
		Aliases: []string{"show-execution"},
		Usage:   "show the execution order of the provider's projects",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "tree", Usage: "tree, dot, mermaid or json"},
		},
		Action: func(c *cli.Context) error {
			if err := checkArgs(c, 0, "show [--format tree|dot|mermaid|json]"); err != nil {
				return err
			}
			var o runner.ShowOptions
			if c.IsSet("format") {
				o.Format = c.String("format")
			}
			return runner.ShowOrder(options(c, io), o)
		},
	}
}
