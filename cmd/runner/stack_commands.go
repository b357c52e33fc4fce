package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

// stackCommands lists `runner stack ...`: each turns its flags into the
// options of one runner.Stack* function and calls it.
func stackCommands(tio *term.IO) []*cli.Command {
	s := stackCLI{tio: tio}
	return []*cli.Command{
		s.initCommand(), s.selectCommand(), s.listCommand(), s.outputCommand(), s.exportCommand(), s.importCommand(),
		s.historyCommand(), s.tagCommand(), s.removeCommand(), s.unlockCommand(), s.repairCommand(), s.migrateCommand(),
	}
}

func (s stackCLI) migrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "copy the stack's state and tags to the backend at --to URL, verifying every copy (refused while any lock is held)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "to", Usage: "the destination backend `URL` (file://, s3://, postgres://); required"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if c.String("to") == "" {
				return usageError("stack migrate needs --to URL, the backend to copy the stack to")
			}
			msg, err := runner.StackMigrate(c.Context, s.opts(c), c.String("to"))
			return s.result(c, msg, err)
		},
	}
}

// stackCLI builds the stack subcommands on the process's streams.
type stackCLI struct{ tio *term.IO }

// projectFlag is --project, new for each command (a flag keeps state).
func projectFlag() cli.Flag { return &cli.StringFlag{Name: "project", Usage: "only this `PROJECT`"} }

func (s stackCLI) opts(c *cli.Context) runner.Options { return options(c, s.tio) }

// result prints the sentence a command ends with.
func (s stackCLI) result(c *cli.Context, msg string, err error) error {
	if err != nil {
		return err
	}
	return say(c, s.tio.Out, "%s", msg)
}

func (s stackCLI) initCommand() *cli.Command {
	return &cli.Command{
		Name: "init", Usage: "create a stack's config with a fresh encryptionsalt and select it", ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("stack init takes one NAME")
			}
			msg, err := runner.StackInit(c.Context, s.opts(c), c.Args().First())
			return s.result(c, msg, err)
		},
	}
}

func (s stackCLI) selectCommand() *cli.Command {
	return &cli.Command{
		Name: "select", Usage: "select the stack (PULUMI_STACK in the environment file); it must exist, unless --create", ArgsUsage: "NAME",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "create", Aliases: []string{"c"}, Usage: "create the stack if it does not exist"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("stack select takes one NAME")
			}
			msg, err := runner.StackSelect(c.Context, s.opts(c), c.Args().First(), c.Bool("create"))
			return s.result(c, msg, err)
		},
	}
}

func (s stackCLI) listCommand() *cli.Command {
	return &cli.Command{
		Name: "ls", Aliases: []string{"list"},
		Usage: "list the stacks of the workspace (a project whose state cannot be read is listed, marked unreadable, and the exit code is 1)",
		Action: func(c *cli.Context) error {
			err := runner.StackList(c.Context, s.opts(c))
			var reported *runner.ReportedError
			if errors.As(err, &reported) {
				return silentError{reported.Err}
			}
			return err
		},
	}
}

func (s stackCLI) outputCommand() *cli.Command {
	return &cli.Command{
		Name: "output", Usage: "show the outputs of every project of the stack", ArgsUsage: "[KEY]",
		Flags: []cli.Flag{projectFlag(), &cli.BoolFlag{Name: "show-secrets", Usage: "show secret outputs in plain text"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageError("stack output takes at most one KEY")
			}
			return runner.StackOutput(c.Context, s.opts(c), runner.StackOutputOptions{
				Key: c.Args().First(), Project: c.String("project"), ShowSecrets: c.Bool("show-secrets")})
		},
	}
}

func (s stackCLI) exportCommand() *cli.Command {
	return &cli.Command{
		Name: "export", Usage: "print a project's state as Pulumi deployment v3 JSON",
		Flags: []cli.Flag{projectFlag(), &cli.StringFlag{Name: "file", Usage: "write to `FILE`"}, &cli.BoolFlag{Name: "show-secrets", Usage: "decrypt secrets"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runner.StackExport(c.Context, s.opts(c), runner.StackExportOptions{
				Project: c.String("project"), File: c.String("file"), ShowSecrets: c.Bool("show-secrets")})
		},
	}
}

func (s stackCLI) importCommand() *cli.Command {
	return &cli.Command{
		Name: "import", Usage: "replace a project's state with a checked deployment file",
		Flags: []cli.Flag{projectFlag(), &cli.StringFlag{Name: "file", Usage: "read `FILE` (- for stdin); required"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if c.String("file") == "" {
				return usageError("stack import needs --file FILE (- reads standard input)")
			}
			msg, err := runner.StackImport(c.Context, s.opts(c), runner.StackImportOptions{Project: c.String("project"), File: c.String("file")})
			return s.result(c, msg, err)
		},
	}
}

func (s stackCLI) historyCommand() *cli.Command {
	return &cli.Command{
		Name: "history", Usage: "list the operations on the stack, newest first",
		Flags: []cli.Flag{projectFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runner.StackHistory(c.Context, s.opts(c), c.String("project"))
		},
	}
}

func (s stackCLI) tagCommand() *cli.Command {
	return &cli.Command{
		Name: "tag", Usage: "tags kept with the stack",
		Subcommands: []*cli.Command{
			{Name: "ls", Usage: "list the tags", Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageError("stack tag ls takes no arguments")
				}
				return runner.StackTags(c.Context, s.opts(c))
			}},
			{Name: "set", Usage: "set a tag", ArgsUsage: "NAME VALUE", Action: func(c *cli.Context) error {
				if c.NArg() != 2 {
					return usageError("stack tag set takes NAME and VALUE")
				}
				return runner.StackSetTag(c.Context, s.opts(c), c.Args().Get(0), c.Args().Get(1))
			}},
			{Name: "rm", Usage: "remove a tag", ArgsUsage: "NAME", Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageError("stack tag rm takes one NAME")
				}
				return runner.StackRemoveTag(c.Context, s.opts(c), c.Args().First())
			}},
		},
	}
}

func (s stackCLI) removeCommand() *cli.Command {
	return &cli.Command{
		Name: "rm", Usage: "remove a stack, moving its config and state to .runner/trash (refused while it has resources)", ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "remove the stack even though resources remain (they are left running; the state is kept in the trash)"},
			&cli.BoolFlag{Name: "preserve-config", Usage: "keep config/pulumi/Pulumi.NAME.yaml"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask to type the stack's name (required without a terminal)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("stack rm takes one NAME")
			}
			return runner.StackRemove(c.Context, s.opts(c), runner.StackRemoveOptions{
				Name: c.Args().First(), Force: c.Bool("force"), PreserveConfig: c.Bool("preserve-config"), Yes: c.Bool("yes")})
		},
	}
}

func (s stackCLI) unlockCommand() *cli.Command {
	return &cli.Command{
		Name: "unlock", Usage: "clear the stale locks of the stack (or only those of --project)",
		Flags: []cli.Flag{projectFlag(), &cli.BoolFlag{Name: "force", Usage: "clear them even if their holder still runs"}},
		Action: func(c *cli.Context) error {
			var err error
			if c.String("project") != "" {
				err = noArgs(c)
			} else {
				err = checkArgs(c, 0, "stack unlock [--project NAME] [--force]")
			}
			if err != nil {
				return err
			}
			msg, err := runner.StackUnlock(c.Context, s.opts(c), runner.StackUnlockOptions{Project: c.String("project"), Force: c.Bool("force")})
			if msg != "" { // what was cleared, even when something else was refused
				if serr := say(c, s.tio.Out, "%s", msg); err == nil {
					err = serr
				}
			}
			return err
		},
	}
}

func (s stackCLI) repairCommand() *cli.Command {
	return &cli.Command{
		Name: "repair", Usage: "clear the pending operations a crash left in every project of the stack (or only --project's), once you have checked the resources they name",
		Flags: []cli.Flag{projectFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			msg, err := runner.StackRepair(c.Context, s.opts(c), c.String("project"))
			return s.result(c, msg, err)
		},
	}
}

// noArgs refuses arguments to a command that works on --project.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("stack %s takes no arguments", c.Command.Name)
	}
	return nil
}
