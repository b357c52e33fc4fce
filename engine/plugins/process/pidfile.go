package process

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine/atomicfile"
)

// writePidFile records pid in path, atomically.
func writePidFile(path string, pid int) error {
	if err := atomicfile.Write(path, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing the pid file: %w", err)
	}
	return nil
}

// fromPidFile returns the pid recorded in path and its start ticks when
// that process still runs.
func fromPidFile(path string) (int, uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	ticks, err := startTicks(pid)
	if err != nil || !alive(pid, ticks) {
		return 0, 0, false
	}
	return pid, ticks, true
}
