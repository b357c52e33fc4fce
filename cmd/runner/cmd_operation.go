package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/orchestrate"
	"github.com/runnerhq/runner/runner/term"
)

// operationCommand builds preview, up, refresh and destroy.
func operationCommand(io *term.IO, op, usage string, aliases []string) *cli.Command {
	flags := []cli.Flag{
		&cli.IntFlag{Name: "parallel", DefaultText: "0, every project that is ready",
			Usage: "how many projects run at once"},
		&cli.IntFlag{Name: "step-parallel", Value: engine.DefaultParallel(), DefaultText: fmt.Sprintf("%d", engine.DefaultParallel()),
			Usage: "how many steps (plugin calls) of one project run at once; every project in flight has its own, so up to --parallel x this many run together"},
		&cli.StringSliceFlag{Name: "target", Usage: "run only this `PROJECT` (repeatable)"},
		&cli.BoolFlag{Name: "fail-fast", Usage: "stop starting projects after the first failure"},
		&cli.BoolFlag{Name: "no-durations", Usage: "leave durations out of the output, for logs that compare equal across runs (with --parallel 1 --step-parallel 1)"},
	}
	if op != orchestrate.Preview {
		flags = append(flags, &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"})
	}
	if op == orchestrate.Up || op == orchestrate.Preview {
		flags = append(flags, &cli.BoolFlag{Name: "refresh", Usage: "read every resource back before planning"})
	}
	switch op {
	case orchestrate.Preview:
		flags = append(flags, &cli.StringFlag{Name: "out", Usage: "write the whole graph's plan to `FILE` (for up --plan)"})
	case orchestrate.Up:
		flags = append(flags, &cli.StringFlag{Name: "plan", Usage: "execute the plan in `FILE` (written by preview --out), without asking; refused if the state or config changed since"})
	}
	return &cli.Command{
		Name: op, Aliases: aliases, Usage: usage, Flags: flags,
		Action: func(c *cli.Context) error {
			if err := checkArgs(c, 0, op+" [flags]"); err != nil {
				return err
			}
			return runner.RunOperation(c.Context, options(c, io), runner.OpOptions{
				Operation: op, Yes: c.Bool("yes"), Parallel: c.Int("parallel"), StepParallel: c.Int("step-parallel"),
				Targets: c.StringSlice("target"), Refresh: c.Bool("refresh"), FailFast: c.Bool("fail-fast"),
				NoDurations: c.Bool("no-durations"),
				PlanOut:     c.String("out"), PlanFile: c.String("plan"),
			})
		},
	}
}
