package main

import (
	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

// pluginCommand holds `runner plugin ls|install|rm`: each turns its flags
// into the arguments of one runner.Plugin* function.
func pluginCommand(tio *term.IO) *cli.Command {
	return &cli.Command{
		Name:  "plugin",
		Usage: "manage the Pulumi resource plugins in the plugin cache shared with the Pulumi CLI (PATH first, then $PULUMI_HOME/plugins)",
		Subcommands: []*cli.Command{
			{
				Name: "ls", Aliases: []string{"list"}, Usage: "list the plugins on PATH and in the plugin cache",
				Action: func(c *cli.Context) error {
					if err := checkArgs(c, 0, "plugin ls"); err != nil {
						return err
					}
					return runner.PluginList(options(c, tio))
				},
			},
			pluginInstallCommand(tio),
			{
				Name: "rm", Aliases: []string{"remove"}, ArgsUsage: "NAME [VERSION]",
				Usage: "remove a plugin's VERSION (every version without one) from the plugin cache; a binary on PATH is never removed",
				Action: func(c *cli.Context) error {
					if c.NArg() < 1 || c.NArg() > 2 {
						return usageError("plugin rm takes NAME and an optional VERSION")
					}
					return runner.PluginRemove(options(c, tio), c.Args().Get(0), c.Args().Get(1))
				},
			},
		},
	}
}

func pluginInstallCommand(tio *term.IO) *cli.Command {
	return &cli.Command{
		Name: "install", ArgsUsage: "NAME [VERSION] | --provider P",
		Usage: "download a plugin into the plugin cache (from GitHub, then get.pulumi.com, or --server); --provider P: every plugin P needs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "server", Usage: "download from the mirror at `URL` (the folder of the assets, or a template with ${NAME} ${VERSION} ${OS} ${ARCH}, or github://HOST/ORG[/REPO])"},
			&cli.StringFlag{Name: "checksum", Usage: "the `SHA256` the downloaded archive must have (a mismatch installs nothing)"},
			&cli.BoolFlag{Name: "insecure-http", Usage: "allow plain http:// to another machine (loopback is always allowed)"},
		},
		Action: func(c *cli.Context) error {
			o := runner.PluginInstallOptions{Server: c.String("server"), Checksum: c.String("checksum"), InsecureHTTP: c.Bool("insecure-http")}
			switch {
			case c.NArg() == 0 && c.IsSet("provider"):
				o.ForProvider = true
			case c.NArg() == 0:
				return usageError("plugin install takes NAME [VERSION], or --provider P for the plugins of provider P")
			case c.NArg() > 2:
				return usageError("too many arguments; usage: runner plugin install NAME [VERSION]")
			default:
				o.Name, o.Version = c.Args().Get(0), c.Args().Get(1)
			}
			return runner.PluginInstall(c.Context, options(c, tio), o)
		},
	}
}
