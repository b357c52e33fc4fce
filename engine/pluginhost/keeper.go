//go:build linux

package pluginhost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// KeeperArg, as the first argument of the runner binary, makes it a group
// keeper (RunKeeper) instead of the CLI.
const KeeperArg = "__runner-keep-group"

// keeper is the binary StartTied starts a process through ("": none).
var keeper string

// UseKeeper makes StartTied start every process through exe (the runner
// binary, whose main calls RunKeeper for KeeperArg): Pdeathsig reaches
// only the direct child, so without a keeper what a language host starts
// itself (the plugin it reads schemas from) would outlive a runner killed
// with SIGKILL.
func UseKeeper(exe string) { keeper = exe }

// keep rewrites cmd to run through the keeper, when there is one.
func keep(cmd *exec.Cmd) {
	if keeper == "" {
		return
	}
	cmd.Args = append([]string{keeper, KeeperArg, strconv.Itoa(len(cmd.ExtraFiles)), cmd.Path}, cmd.Args[1:]...)
	cmd.Path = keeper
}

// RunKeeper runs args (the count of inherited files beyond stderr, then a
// command and its arguments) as the keeper of its process group: started
// by StartTied as the group's leader, with SIGTERM as its parent-death
// signal. When runner dies it kills the whole group; otherwise it passes
// on the command's exit. The inherited files (fd 3 on) are passed on. It
// returns the exit code.
func RunKeeper(args []string) int {
	n, err := strconv.Atoi(firstOr(args, ""))
	if err != nil || len(args) < 2 {
		fmt.Fprintln(os.Stderr, "runner group keeper: usage: "+KeeperArg+" FILES COMMAND [ARG...]")
		return 2
	}
	args = args[1:]
	// Orphans of the command (a plugin whose language host died) come to
	// the keeper, not to init, so that it can still end them.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	died := make(chan os.Signal, 1)
	signal.Notify(died, syscall.SIGTERM)
	signal.Ignore(syscall.SIGINT) // the group's SIGINT is for the command
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for fd := 3; fd < 3+n; fd++ {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fd), fmt.Sprintf("fd%d", fd)))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "runner group keeper: %v\n", err)
		return 127
	}
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-died: // runner is gone: so is everything it started
		killDescendants(os.Getpid())
		_ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL)
		return 137
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return exit.ExitCode()
		}
		if err != nil {
			return 1
		}
		return 0
	}
}

func firstOr(args []string, def string) string {
	if len(args) == 0 {
		return def
	}
	return args[0]
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// killDescendants kills every process below pid, found by their parents
// in /proc, whatever group or session they moved to (a plugin a language
// host started in a group of its own).
func killDescendants(pid int) {
	for round := 0; round < 3; round++ {
		parent := map[int]int{}
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, st := range stats {
			b, err := os.ReadFile(st)
			if err != nil {
				continue
			}
			s := string(b)
			i := strings.LastIndexByte(s, ')')
			f := strings.Fields(s[i+1:])
			if i < 0 || len(f) < 2 {
				continue
			}
			p, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			pp, _ := strconv.Atoi(f[1])
			parent[p] = pp
		}
		killed := 0
		for p := range parent {
			for a, depth := parent[p], 0; a > 1 && depth < 256; a, depth = parent[a], depth+1 {
				if a == pid {
					_ = syscall.Kill(p, syscall.SIGKILL)
					killed++
					break
				}
			}
		}
		if killed == 0 {
			return
		}
	}
}

// keeperDeathSignal makes a dying runner send the keeper SIGTERM, which it
// catches to kill what it keeps (SIGKILL could not be caught).
func keeperDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
