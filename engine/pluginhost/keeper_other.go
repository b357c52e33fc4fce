//go:build !linux

package pluginhost

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// KeeperArg, as the first argument of the runner binary, makes it a group
// keeper (RunKeeper) instead of the CLI.
const KeeperArg = "__runner-keep-group"

// UseKeeper does nothing outside Linux, which has no parent-death signal.
func UseKeeper(string) {}

func keep(*exec.Cmd) {}

var keeper string

// RunKeeper runs the command of args (after the count of inherited
// files) and returns its exit code.
func RunKeeper(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "runner group keeper: no command")
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		return 1
	}
	return 0
}

func keeperDeathSignal(*syscall.SysProcAttr) {}
