package process

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/runnerhq/runner/engine/resource"
)

// markerVar is the variable every started process gets in its environment:
// a name derived from the resource's URN and pid file, so that a process
// whose create was cut short (runner killed after the start, before the
// pid file or the state recorded it) is found again and adopted rather
// than started a second time.
const markerVar = "RUNNER_PROCESS_MARKER"

// marker returns the value of markerVar for the process of urn with inputs.
func marker(urn resource.URN, in resource.PropertyMap) string {
	pidFile, _ := in.String("pidFile", "")
	dir, _ := in.String("dir", "")
	sum := sha256.Sum256([]byte(string(urn) + "\x00" + pidFile + "\x00" + dir))
	return hex.EncodeToString(sum[:16])
}

// findMarked returns the process of this user that leads its session and
// holds the marker in its environment, with its start ticks; ok is false
// when none runs.
func findMarked(mark string) (int, uint64, bool) {
	want := []byte(markerVar + "=" + mark + "\x00")
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range envs {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append(data, 0), want) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || !leadsSession(pid) {
			continue
		}
		if ticks, err := startTicks(pid); err == nil && alive(pid, ticks) {
			return pid, ticks, true
		}
	}
	return 0, 0, false
}

// leadsSession reports whether pid is the leader of its session, as a
// started process is (its children inherit the marker too).
func leadsSession(pid int) bool {
	fields, err := procStat(pid)
	return err == nil && len(fields) > 3 && fields[3] == fmt.Sprint(pid)
}
