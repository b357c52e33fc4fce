package pluginhost

import (
	"syscall"
	"unsafe"
)

// sysProcAttr puts the plugin in its own process group and has the kernel
// kill it when the runner dies (the creating thread, kept locked for the
// plugin's life by process.run).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// blockUntilExited waits for the process pid to exit without reaping it:
// until it is reaped its ID, and so its group's, cannot be reused.
func blockUntilExited(pid int) {
	const pPID = 1     // waitid's P_PID
	var info [128]byte // a siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}
