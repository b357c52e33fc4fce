package backend

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"syscall"
	"time"
)

// CurrentLockInfo describes this process as a lock holder running command.
func CurrentLockInfo(command string) LockInfo {
	host, _ := os.Hostname()
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	pid := os.Getpid()
	return LockInfo{PID: pid, Host: host, ProcessStart: processStart(pid), PIDNamespace: pidNamespace(), User: name, Started: time.Now().UTC(), Command: command}
}

// pidNamespace names this process's pid namespace ("" when unknown).
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// fillHolder completes a holder with this process's pid, host, user and
// the current time where they are missing, so that a lock left behind can
// be recognized as stale.
func fillHolder(h LockInfo) LockInfo {
	me := CurrentLockInfo(h.Command)
	if h.PID == 0 {
		h.PID = me.PID
	}
	if h.PID == me.PID && h.ProcessStart == "" {
		h.ProcessStart = me.ProcessStart
	}
	if h.Host == "" {
		h.Host = me.Host
	}
	if h.User == "" {
		h.User = me.User
	}
	if h.Started.IsZero() {
		h.Started = me.Started
	}
	return h
}

// processAlive reports whether a process with this pid runs on this host:
// a zombie (killed, not yet reaped by its parent) does not.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil {
		return errors.Is(err, syscall.EPERM)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(data, ')'); err == nil && i >= 0 {
		if f := strings.Fields(string(data[i+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return false
		}
	}
	return true
}

// processStart returns when process pid of this host started, in clock
// ticks since boot (field 22 of /proc/<pid>/stat), "" when unknown (no
// /proc, or no such process).
func processStart(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(data[i+1:]))
	const startField = 22 - 3 // fields after the name start at field 3
	if len(fields) <= startField {
		return ""
	}
	return fields[startField]
}
