package main

import (
	"encoding/json"
	"fmt"

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
			s, err := runner.Open(options(c, io))
			if err != nil {
				return err
			}
			rep, err := s.Validate(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return json.NewEncoder(io.Out).Encode(map[string]any{
					"stack": s.StackName, "provider": s.Provider.Name, "file": s.ConfigPath, "valid": true,
					"asked": rep.Asked, "defaulted": rep.Defaulted, "warnings": rep.Warnings})
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(io.Err, "warning: %s\n", w)
			}
			if len(rep.Asked)+len(rep.Defaulted) > 0 {
				fmt.Fprintf(io.Out, "Saved %d value(s) to %s\n", len(rep.Asked)+len(rep.Defaulted), s.ConfigPath)
			}
			fmt.Fprintf(io.Out, "The config of stack %s is complete and valid for provider %s (%d questions).\n", s.StackName, s.Provider.Name, len(s.Provider.Questions))
			return nil
		},
	}
}
