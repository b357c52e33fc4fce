// Package gctune sets Go's garbage collector, for runner's own process
// and for the Pulumi YAML host it starts, to collect less often than Go's
// default when the user set neither GOGC nor GOMEMLIMIT: both have small
// heaps that they allocate through fast (a 1,000-resource program: ~9 MB
// live, collected ~20 times a run with the default).
package gctune

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Percent is the GOGC given: the heap may grow to five times what is live
// between collections, rather than twice.
const Percent = 400

// minLimit is the least memory limit worth tuning for: below it, Go's
// defaults are kept.
const minLimit = 256 << 20

// Limit is the soft memory limit (GOMEMLIMIT) given with Percent, as a
// ceiling: a quarter of the machine's memory, or half of the cgroup's
// limit when that is less. Near it the collector runs as often as it
// needs to stay below, so a process with a large heap does not grow to
// five times its size. 0: unknown or under 256 MiB, keep Go's defaults.
func Limit() int64 {
	limit := memTotal() / 4
	if c := cgroupLimit(); c > 0 && c/2 < limit {
		limit = c / 2
	}
	if limit < minLimit {
		return 0
	}
	return limit
}

// UserSet reports whether env (KEY=value entries) sets GOGC or
// GOMEMLIMIT: then the user's setting wins and nothing is tuned.
func UserSet(env []string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == "GOGC" || k == "GOMEMLIMIT" {
			return true
		}
	}
	return false
}

// Env returns env with GOGC=Percent and GOMEMLIMIT=limit added, for a
// process runner starts; env unchanged when the user set either or limit
// is 0.
func Env(env []string, limit int64) []string {
	if UserSet(env) || limit <= 0 {
		return env
	}
	out := make([]string, 0, len(env)+2)
	out = append(out, env...)
	return append(out, "GOGC="+strconv.Itoa(Percent), "GOMEMLIMIT="+strconv.FormatInt(limit, 10))
}

// Self tunes the running process (runner's own) in the same way, unless
// its environment sets GOGC or GOMEMLIMIT. Its children do not inherit it.
func Self() {
	if limit := Limit(); !UserSet(os.Environ()) && limit > 0 {
		debug.SetGCPercent(Percent)
		debug.SetMemoryLimit(limit)
	}
}

// memTotal is the machine's memory in bytes (/proc/meminfo), 0 when
// unknown.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit is the memory limit of the process's cgroup as its
// container sees it (cgroup v2 memory.max, else v1
// memory.limit_in_bytes), 0 when none or unknown.
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 {
			return 0 // "max", or v1's unlimited
		}
		return n
	}
	return 0
}
