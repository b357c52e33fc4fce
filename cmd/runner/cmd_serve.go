package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/projects/local/service"
	"github.com/runnerhq/runner/runner/term"
)

// serveCommand is the local environment's application: started detached by
// the app project, its command line names the workspace so that an
// operator can find it with ps.
func serveCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:   "serve-local",
		Usage:  "serve the local environment's HTTPS application (started by `runner up`)",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "workspace", Usage: "the workspace this service belongs to"},
			&cli.StringFlag{Name: "config", Required: true, Usage: "the service configuration `FILE`"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := service.LoadConfig(c.String("config"))
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Err, "serving the local environment of %s\n", c.String("workspace"))
			return service.Serve(c.Context, cfg)
		},
	}
}
