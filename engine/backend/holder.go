package backend

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
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
	return LockInfo{PID: pid, Host: host, ProcessStart: processStart(pid), PIDNamespace: pidNamespace(), BootID: bootID(),
		User: name, Started: time.Now().UTC(), Command: command}
}

// bootID names this boot of this machine's kernel ("" when unknown).
func bootID() string {
	id, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(id))
}

// pidNamespace names this process's pid namespace ("" when unknown).
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// initialPIDNamespace is the host's own pid namespace on Linux (its
// inode number is fixed: PROC_PID_INIT_INO), which sees the processes of
// every other.
const initialPIDNamespace = "pid:[4026531836]"

// judgedHere reports whether the holder's pid names a process this process
// can see: the holder recorded this pid namespace, or recorded none and
// this process runs in the host's own namespace. A holder that recorded
// none may have run in a container of the same hostname, which counts pids
// apart (the Pulumi CLI records no namespace): from another container its
// pid proves nothing, and from the host's namespace it is looked up in
// every namespace (pidInNestedNamespace).
func (h LockInfo) judgedHere() bool {
	ns := pidNamespace()
	if h.PIDNamespace != "" || ns == "" {
		return h.PIDNamespace == ns
	}
	return ns == initialPIDNamespace
}

// pidInNestedNamespace reports whether a process of this host has pid in a
// pid namespace nested in this one (the NSpid line of /proc/<p>/status
// lists a process's pid in each namespace it is in, this one's first).
func pidInNestedNamespace(pid int) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/status")
	want := strconv.Itoa(pid)
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
				if f := strings.Fields(rest); len(f) > 1 && slices.Contains(f[1:], want) {
					return true
				}
				break
			}
		}
	}
	return false
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
