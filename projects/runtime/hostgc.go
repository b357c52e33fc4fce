package runtime

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// yamlHostGOGC is the garbage collector's target given to Pulumi's YAML
// host: its live heap is small (~9 MB for 1,000 resources) and it
// allocates fast, so Go's default (100) collects ~20 times a run; 400
// collects ~4 times for a heap of ~50 MB.
const yamlHostGOGC = "400"

// minHostMemLimit is the least memory limit given with yamlHostGOGC.
const minHostMemLimit = 1 << 30

// hostGCEnv returns env with a garbage collector setting for the YAML host
// added: GOGC=400 and, as a ceiling, GOMEMLIMIT a quarter of the machine's
// memory (at least 1 GiB), so that a host with a large heap collects as
// often as the limit needs rather than grow to five times its heap. A
// user's own GOGC or GOMEMLIMIT wins: with either set, env is unchanged.
// Only the YAML host gets it (it runs no code of the user's); Node.js and
// Go programs and provider plugins that runner starts keep Go's defaults.
func hostGCEnv(env []string, memTotal func() int64) []string {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == "GOGC" || k == "GOMEMLIMIT" {
			return env
		}
	}
	limit := memTotal() / 4
	if limit < minHostMemLimit {
		limit = minHostMemLimit
	}
	out := make([]string, 0, len(env)+2)
	out = append(out, env...)
	return append(out, "GOGC="+yamlHostGOGC, "GOMEMLIMIT="+strconv.FormatInt(limit, 10))
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
