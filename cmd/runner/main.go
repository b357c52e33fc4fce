// Command runner stands up a whole environment made of many infrastructure
// projects, in dependency order, through an embedded deployment engine.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/runnerhq/runner/engine/pluginhost"
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
		fmt.Fprintln(io.Err, "\ninterrupted: no new steps start; the steps in flight finish and the state is saved (Ctrl-C again quits at once)")
	}()
	os.Exit(run(ctx, io, os.Args))
}
