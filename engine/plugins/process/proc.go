package process

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// What /proc says of a process: whether it still runs, and when it started.

// alive reports whether pid runs (not a zombie) and, when ticks is not 0,
// started at ticks.
func alive(pid int, ticks uint64) bool {
	if pid <= 0 {
		return false
	}
	fields, err := procStat(pid)
	if err != nil || len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return false
	}
	if ticks == 0 {
		return true
	}
	got, err := strconv.ParseUint(fields[19], 10, 64)
	return err == nil && got == ticks
}

// startTicks returns the start time of pid in clock ticks since boot.
func startTicks(pid int) (uint64, error) {
	fields, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	if len(fields) < 20 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strconv.ParseUint(fields[19], 10, 64)
}

// procStat returns the fields of /proc/<pid>/stat (see statFields).
func procStat(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	return statFields(string(stat)), nil
}

// statFields splits /proc/pid/stat after the command name (which may hold
// spaces), so that fields[0] is the state and fields[19] the start time.
func statFields(stat string) []string {
	if i := strings.LastIndex(stat, ")"); i >= 0 {
		stat = stat[i+1:]
	}
	return strings.Fields(stat)
}
