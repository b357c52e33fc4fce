package pluginhost

import "syscall"

// sysProcAttr puts the plugin in its own process group and has the kernel
// kill it when the runner dies (the creating thread, kept locked for the
// plugin's life by process.run).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
