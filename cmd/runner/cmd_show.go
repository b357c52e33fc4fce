package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/providers/builtin"
	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/graph"
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
			p, err := builtin.Registry().Get(c.String("provider"))
			if err != nil {
				return runner.Usage(err)
			}
			g, err := graph.Build(p)
			if err != nil {
				return err
			}
			format := c.String("format")
			if c.Bool("json") && !c.IsSet("format") {
				format = "json"
			}
			out, err := graph.Render(g, format)
			var fe *graph.FormatError
			if errors.As(err, &fe) {
				return runner.Usage(err)
			}
			if err != nil {
				return err
			}
			_, err = io.Out.Write(out)
			return err
		},
	}
}
