package e2e

import (
	"strings"
	"testing"
)

// TestHugeParallelBounds: --parallel and --step-parallel far above the
// number of projects and steps (up to the largest int) run as if unbounded,
// instead of allocating for the bound and crashing.
func TestHugeParallelBounds(t *testing.T) {
	dir := deployable(t)
	for _, n := range []string{"2147483648", "9223372036854775807"} {
		for _, flag := range []string{"--parallel", "--step-parallel"} {
			r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "preview", flag, n)
			if r.Code != 0 || strings.Contains(r.Stderr, "panic") || strings.Contains(r.Stderr, "fatal error") {
				t.Errorf("preview %s %s: exit %d\n%s", flag, n, r.Code, r.Stderr[:min(len(r.Stderr), 600)])
			}
		}
	}
}
