package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func configCommand(tio *term.IO) *cli.Command {
	pathFlag := &cli.BoolFlag{Name: "path", Usage: "the key is a path into a structured value: ns:key.field[0]"}
	return &cli.Command{
		Name:  "config",
		Usage: "read and change the shared stack config",
		Subcommands: []*cli.Command{
			{
				Name: "ls", Aliases: []string{"list"}, Usage: "list the config values",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "show-secrets", Usage: "show secret values in plain text"}},
				Action: func(c *cli.Context) error {
					o := runner.ConfigListOptions{Secrets: runner.Redact}
					if c.Bool("show-secrets") {
						o.Secrets = runner.Reveal
					}
					return runner.ConfigList(c.Context, options(c, tio), o)
				},
			},
			{
				Name: "get", Usage: "print one value (a secret in plain text, as Pulumi does)", ArgsUsage: "KEY",
				Flags: []cli.Flag{pathFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("config get takes one KEY, such as app:port")
					}
					return runner.ConfigGet(c.Context, options(c, tio), runner.ConfigGetOptions{
						Key: c.Args().First(), Path: c.Bool("path"), Secrets: runner.Reveal})
				},
			},
			{
				Name: "set", Usage: "set a value (read from stdin when VALUE is left out)", ArgsUsage: "KEY [VALUE]",
				Flags: []cli.Flag{pathFlag, &cli.BoolFlag{Name: "secret", Usage: "encrypt the value"}},
				Action: func(c *cli.Context) error {
					if c.NArg() < 1 || c.NArg() > 2 {
						return usageError("config set takes KEY and VALUE (or the value on stdin)")
					}
					return runner.ConfigSet(c.Context, options(c, tio), runner.ConfigSetOptions{
						Key: c.Args().Get(0), Value: c.Args().Get(1), ValueGiven: c.NArg() == 2,
						Secret: c.Bool("secret"), Path: c.Bool("path")})
				},
			},
			{
				Name: "rm", Aliases: []string{"remove"}, Usage: "remove a value", ArgsUsage: "KEY",
				Flags: []cli.Flag{pathFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("config rm takes one KEY")
					}
					return runner.ConfigRemove(c.Context, options(c, tio), runner.ConfigRemoveOptions{
						Key: c.Args().First(), Path: c.Bool("path")})
				},
			},
		},
	}
}
