package providers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Command returns the runner command line that runs args on the run's
// workspace and stack, as a user can type it from the folder runner was
// started in: `runner` when PATH finds this binary, else the binary's path
// (relative when under the current folder), with --root and --stack.
// Hints in messages use it, so that they work as printed (after `make run`,
// say, which runs bin/runner on examples/local).
func (rt Runtime) Command(args string) string {
	exe := "runner"
	if rt.Executable != "" && !onPath(exe, rt.Executable) {
		exe = relative(rt.Executable)
		if !strings.ContainsRune(exe, filepath.Separator) {
			exe = "." + string(filepath.Separator) + exe
		}
	}
	parts := []string{quote(exe)}
	if rt.Workspace != "" {
		parts = append(parts, "--root", quote(relative(rt.Workspace)))
	}
	if rt.Stack != "" {
		parts = append(parts, "--stack", quote(rt.Stack))
	}
	return strings.Join(append(parts, args), " ")
}

// onPath reports whether PATH finds name as the file exe.
func onPath(name, exe string) bool {
	found, err := exec.LookPath(name)
	if err != nil {
		return false
	}
	a, errA := os.Stat(found)
	b, errB := os.Stat(exe)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// relative returns path relative to the current folder when it is under
// it, else as it is.
func relative(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}

// quote quotes s for a POSIX shell when it needs it.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
