// Command runner stands up a whole environment made of many infrastructure
// projects, in dependency order, through an embedded deployment engine.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/internal/gctune"
	"github.com/runnerhq/runner/runner/term"
)

// Set at build time with -ldflags.
var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == pluginhost.KeeperArg {
		os.Exit(pluginhost.RunKeeper(os.Args[2:]))
	}
	gctune.Self()
	if exe, err := os.Executable(); err == nil {
		pluginhost.UseKeeper(exe)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	io := term.System()
	go func() {
		// The first Ctrl-C stops scheduling and lets steps in flight finish;
		// after it, a second one ends the process at once.
		<-ctx.Done()
		stop()
		fmt.Fprintln(io.Err, "\ninterrupted: no new steps start; the steps in flight finish and what they did is recorded (Ctrl-C again quits at once)")
	}()
	stopProfile := profile(os.Getenv("RUNNER_CPUPROFILE"))
	code := run(ctx, io, os.Args)
	stopProfile()
	os.Exit(code)
}

// profile writes a CPU profile of the whole run to path when it is set
// (RUNNER_CPUPROFILE, for measuring runner itself; see docs/benchmarks.md).
// A profile that cannot be started is reported and the run goes on.
func profile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "RUNNER_CPUPROFILE: not profiling: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
