package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func versionCommand(tio *term.IO) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, the commit and the Go version",
		Action: func(c *cli.Context) error {
			doc := map[string]string{"version": version, "commit": commit, "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
			return runner.OutputOf(options(c, tio)).Object(doc, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "runner %s (commit %s, %s, %s/%s)\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
				return err
			})
		},
	}
}
