//go:build !linux

package pluginhost

import "syscall"

// sysProcAttr puts the plugin in its own process group (no Pdeathsig
// outside Linux).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// blockUntilExited returns at once outside Linux: the process is reaped as
// soon as it exits.
func blockUntilExited(int) {}
