package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

// stackCommands lists `runner stack ...`.
func stackCommands(tio *term.IO) []*cli.Command {
	projectFlag := &cli.StringFlag{Name: "project", Usage: "only this `PROJECT`"}
	open := func(c *cli.Context) (*runner.Stacks, error) { return runner.OpenStacks(options(c, tio)) }
	return []*cli.Command{
		{
			Name: "init", Usage: "create a stack's config with a fresh encryptionsalt and select it", ArgsUsage: "NAME",
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageError("stack init takes one NAME")
				}
				s, err := open(c)
				if err != nil {
					return err
				}
				path, err := s.Init(c.Args().First())
				if err != nil {
					return err
				}
				return say(c, tio.Out, "Created stack %s (%s) and selected it.", c.Args().First(), path)
			},
		},
		{
			Name: "select", Usage: "select the stack (PULUMI_STACK in the environment file)", ArgsUsage: "NAME",
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageError("stack select takes one NAME")
				}
				s, err := open(c)
				if err != nil {
					return err
				}
				if err := s.Select(c.Args().First()); err != nil {
					return err
				}
				return say(c, tio.Out, "Selected stack %s.", c.Args().First())
			},
		},
		{
			Name: "ls", Aliases: []string{"list"},
			Usage: "list the stacks of the workspace (a project whose state cannot be read is listed, marked unreadable, and the exit code is 1)",
			Action: func(c *cli.Context) error {
				s, err := open(c)
				if err != nil {
					return err
				}
				list, err := s.List()
				var unreadable *runner.UnreadableStateError
				if err != nil && !errors.As(err, &unreadable) {
					return err
				}
				if c.Bool("json") {
					if werr := writeJSON(tio.Out, list); werr != nil || unreadable == nil {
						return werr
					}
					fmt.Fprintf(tio.Err, "warning: %s\n", unreadable)
					return silentError{unreadable} // stdout holds the listing only; each project carries its "error"
				}
				if perr := printStackList(tio.Out, list); perr != nil {
					return perr
				}
				return err
			},
		},
		{
			Name: "output", Usage: "show the outputs of every project of the stack", ArgsUsage: "[KEY]",
			Flags: []cli.Flag{projectFlag, &cli.BoolFlag{Name: "show-secrets", Usage: "show secret outputs in plain text"}},
			Action: func(c *cli.Context) error {
				if c.NArg() > 1 {
					return usageError("stack output takes at most one KEY")
				}
				s, err := open(c)
				if err != nil {
					return err
				}
				stack, err := s.Stack()
				if err != nil {
					return err
				}
				outs, err := s.Outputs(c.Context, stack, c.String("project"), c.Bool("show-secrets"))
				if err != nil {
					return err
				}
				return printOutputs(tio.Out, outs, c.Args().First(), c.String("project") != "", c.Bool("json"), stack)
			},
		},
		{
			Name: "export", Usage: "print a project's state as Pulumi deployment v3 JSON",
			Flags: []cli.Flag{projectFlag, &cli.StringFlag{Name: "file", Usage: "write to `FILE`"}, &cli.BoolFlag{Name: "show-secrets", Usage: "decrypt secrets"}},
			Action: func(c *cli.Context) error {
				s, stack, project, err := stackAndProject(c, open)
				if err != nil {
					return err
				}
				if f := c.String("file"); f != "" {
					return s.ExportFile(c.Context, stack, project, c.Bool("show-secrets"), f)
				}
				data, err := s.Export(c.Context, stack, project, c.Bool("show-secrets"))
				if err != nil {
					return err
				}
				_, err = tio.Out.Write(data)
				return err
			},
		},
		{
			Name: "import", Usage: "replace a project's state with a checked deployment file",
			Flags: []cli.Flag{projectFlag, &cli.StringFlag{Name: "file", Usage: "read `FILE` (- for stdin)", Required: true}},
			Action: func(c *cli.Context) error {
				s, stack, project, err := stackAndProject(c, open)
				if err != nil {
					return err
				}
				var data []byte
				if f := c.String("file"); f == "-" {
					data, err = io.ReadAll(tio.In)
				} else {
					data, err = os.ReadFile(f)
				}
				if err != nil {
					return runner.Usage(fmt.Errorf("reading the file to import: %w", err))
				}
				if err := s.Import(c.Context, stack, project, data); err != nil {
					return err
				}
				return say(c, tio.Out, "Imported the state of project %s on stack %s.", project, stack)
			},
		},
		{
			Name: "history", Usage: "list the operations on the stack, newest first",
			Flags: []cli.Flag{projectFlag},
			Action: func(c *cli.Context) error {
				s, err := open(c)
				if err != nil {
					return err
				}
				stack, err := s.Stack()
				if err != nil {
					return err
				}
				entries, err := s.History(stack, c.String("project"))
				if err != nil {
					return err
				}
				if entries == nil {
					entries = []backend.HistoryEntry{}
				}
				if c.Bool("json") {
					return writeJSON(tio.Out, entries)
				}
				return printHistory(tio.Out, entries)
			},
		},
		{
			Name: "tag", Usage: "tags kept with the stack",
			Subcommands: []*cli.Command{
				{Name: "ls", Usage: "list the tags", Action: func(c *cli.Context) error {
					s, stack, err := stackOnly(c, open)
					if err != nil {
						return err
					}
					tags, err := s.Backend.Tags(stack)
					if err != nil {
						return err
					}
					if tags == nil {
						tags = map[string]string{}
					}
					if c.Bool("json") {
						return writeJSON(tio.Out, tags)
					}
					keys := make([]string, 0, len(tags))
					for k := range tags {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					tw := tabwriter.NewWriter(tio.Out, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tVALUE")
					for _, k := range keys {
						fmt.Fprintf(tw, "%s\t%s\n", k, tags[k])
					}
					return tw.Flush()
				}},
				{Name: "set", Usage: "set a tag", ArgsUsage: "NAME VALUE", Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return usageError("stack tag set takes NAME and VALUE")
					}
					s, stack, err := stackOnly(c, open)
					if err != nil {
						return err
					}
					return s.Backend.SetTag(stack, c.Args().Get(0), c.Args().Get(1))
				}},
				{Name: "rm", Usage: "remove a tag", ArgsUsage: "NAME", Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("stack tag rm takes one NAME")
					}
					s, stack, err := stackOnly(c, open)
					if err != nil {
						return err
					}
					return s.Backend.RemoveTag(stack, c.Args().First())
				}},
			},
		},
		{
			Name: "rm", Usage: "remove a stack (refused while it has resources)", ArgsUsage: "NAME",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "force", Usage: "remove the state even though resources remain (they are left running)"},
				&cli.BoolFlag{Name: "preserve-config", Usage: "keep config/pulumi/Pulumi.NAME.yaml"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageError("stack rm takes one NAME")
				}
				s, err := open(c)
				if err != nil {
					return err
				}
				warnings, err := s.Remove(c.Context, c.Args().First(), c.Bool("force"), c.Bool("preserve-config"))
				for _, w := range warnings {
					fmt.Fprintf(tio.Err, "warning: %s\n", w)
				}
				if err != nil {
					return err
				}
				return say(c, tio.Out, "Removed stack %s.", c.Args().First())
			},
		},
		{
			Name: "unlock", Usage: "clear the stale locks of the stack (or only those of --project)",
			Flags: []cli.Flag{projectFlag, &cli.BoolFlag{Name: "force", Usage: "clear them even if their holder still runs"}},
			Action: func(c *cli.Context) error {
				msg, err := unlock(c, open)
				if msg != "" {
					if serr := say(c, tio.Out, "%s", msg); err == nil {
						err = serr
					}
				}
				return err
			},
		},
		{
			Name: "repair", Usage: "clear the pending operations a crash left, once you have checked the resources they name",
			Flags: []cli.Flag{projectFlag},
			Action: func(c *cli.Context) error {
				s, stack, project, err := stackAndProject(c, open)
				if err != nil {
					return err
				}
				msg, err := s.Repair(c.Context, stack, project)
				if err != nil {
					return err
				}
				return say(c, tio.Out, "%s", msg)
			},
		},
	}
}

// unlock clears the locks of the project named by --project, or, without
// it, every stale lock of the stack.
func unlock(c *cli.Context, open func(*cli.Context) (*runner.Stacks, error)) (string, error) {
	if c.String("project") != "" {
		s, stack, project, err := stackAndProject(c, open)
		if err != nil {
			return "", err
		}
		return s.Unlock(stack, project, c.Bool("force"))
	}
	if err := checkArgs(c, 0, "stack unlock [--project NAME] [--force]"); err != nil {
		return "", err
	}
	s, stack, err := stackOnly(c, open)
	if err != nil {
		return "", err
	}
	return s.UnlockAll(stack, c.Bool("force"))
}

func stackOnly(c *cli.Context, open func(*cli.Context) (*runner.Stacks, error)) (*runner.Stacks, string, error) {
	s, err := open(c)
	if err != nil {
		return nil, "", err
	}
	stack, err := s.Stack()
	return s, stack, err
}

func stackAndProject(c *cli.Context, open func(*cli.Context) (*runner.Stacks, error)) (*runner.Stacks, string, string, error) {
	if c.NArg() > 0 {
		return nil, "", "", usageError("stack %s takes no arguments", c.Command.Name)
	}
	project := c.String("project")
	if project == "" {
		return nil, "", "", usageError("stack %s needs --project NAME", c.Command.Name)
	}
	s, stack, err := stackOnly(c, open)
	return s, stack, project, err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func printStackList(w io.Writer, list []runner.StackListing) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROJECTS\tRESOURCES\tLAST UPDATE\tRESULT")
	for _, l := range list {
		name := l.Name
		if l.Current {
			name += "*"
		}
		var names []string
		for _, p := range l.Projects {
			switch {
			case p.Error != "":
				names = append(names, p.Name+"(unreadable)")
			case p.Resources > 0:
				names = append(names, p.Name)
			}
		}
		projects := strings.Join(names, ",")
		if projects == "" {
			projects = "-"
		}
		result := l.LastResult
		if result == "" {
			result = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", name, projects, l.Resources, when(l.LastUpdate), result)
	}
	return tw.Flush()
}

func printOutputs(w io.Writer, outs []runner.ProjectOutputs, key string, one, asJSON bool, stack string) error {
	if asJSON {
		doc := map[string]any{}
		for _, o := range outs {
			if key != "" {
				if v, ok := o.Outputs[key]; ok {
					doc[o.Project] = v
				}
				continue
			}
			doc[o.Project] = o.Outputs
		}
		if one && len(outs) == 1 {
			return writeJSON(w, doc[outs[0].Project])
		}
		return writeJSON(w, doc)
	}
	if key != "" {
		found := false
		for _, o := range outs {
			v, ok := o.Outputs[key]
			if !ok {
				continue
			}
			found = true
			if one {
				fmt.Fprintln(w, text(v))
			} else {
				fmt.Fprintf(w, "%s: %s\n", o.Project, text(v))
			}
		}
		if !found {
			return fmt.Errorf("no project of stack %s has the output %q", stack, key)
		}
		return nil
	}
	if len(outs) == 0 {
		fmt.Fprintf(w, "Stack %s has no deployed project.\n", stack)
		return nil
	}
	fmt.Fprintf(w, "Outputs of stack %s\n", stack)
	for _, o := range outs {
		fmt.Fprintf(w, "\n%s\n", o.Project)
		keys := make([]string, 0, len(o.Outputs))
		for k := range o.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range keys {
			v := text(o.Outputs[k])
			if lines := strings.Split(strings.TrimRight(v, "\n"), "\n"); len(lines) > 1 {
				v = fmt.Sprintf("%s … (%d lines)", lines[0], len(lines))
			}
			fmt.Fprintf(tw, "  %s\t%s\n", k, v)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func printHistory(w io.Writer, entries []backend.HistoryEntry) error {
	if len(entries) == 0 {
		fmt.Fprintln(w, "No operations yet.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tPROJECT\tOPERATION\tRESULT\tCHANGES\tDURATION\tBY")
	for _, e := range entries {
		start := e.StartTime
		by := e.User
		if e.Host != "" {
			by += "@" + e.Host
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", when(&start), e.Project, e.Kind, e.Result,
			changesText(e.Changes), e.EndTime.Sub(e.StartTime).Round(time.Millisecond), by)
	}
	return tw.Flush()
}

func changesText(c map[string]int) string {
	var parts []string
	for _, k := range []string{"create", "update", "replace", "delete", "same", "refresh"} {
		if c[k] > 0 {
			sign := map[string]string{"create": "+", "update": "~", "replace": "±", "delete": "-", "same": "=", "refresh": "↻"}[k]
			parts = append(parts, fmt.Sprintf("%s%d", sign, c[k]))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
