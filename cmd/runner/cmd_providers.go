package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/providers/builtin"
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
			type row struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Projects    int    `json:"projects"`
				Deployable  bool   `json:"deployable"`
				Default     bool   `json:"default"`
			}
			var rows []row
			reg := builtin.Registry()
			for _, p := range reg.All() {
				rows = append(rows, row{p.Name, p.Description, len(p.Projects), p.NotDeployable == "", p.Name == reg.Default()})
			}
			if c.Bool("json") {
				enc := json.NewEncoder(io.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tPROJECTS\tDESCRIPTION")
			for _, r := range rows {
				name := r.Name
				if r.Default {
					name += " (default)"
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\n", name, r.Projects, r.Description)
			}
			return tw.Flush()
		},
	}
}
