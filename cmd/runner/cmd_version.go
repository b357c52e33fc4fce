package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner/term"
)

func versionCommand(io *term.IO) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, the commit and the Go version",
		Action: func(c *cli.Context) error {
			if c.Bool("json") {
				return json.NewEncoder(io.Out).Encode(map[string]string{
					"version": version, "commit": commit, "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH})
			}
			fmt.Fprintf(io.Out, "runner %s (commit %s, %s, %s/%s)\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
