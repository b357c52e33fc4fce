package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTargetedRunCountsItsTargets: the operation-start event of a targeted
// run counts the projects it runs, not every project of the provider.
func TestTargetedRunCountsItsTargets(t *testing.T) {
	dir := deployable(t)
	for _, tc := range []struct {
		targets []string
		want    string
	}{
		{[]string{"network"}, "1 project targeted (network)"},
		{[]string{"ca", "network"}, "2 projects targeted (ca, network)"},
		{nil, "5 projects"},
	} {
		args := []string{"--json", "-s", "dev", "--non-interactive", "preview"}
		for _, target := range tc.targets {
			args = append(args, "--target", target)
		}
		var got string
		for _, line := range strings.Split(strings.TrimSpace(ok(t, dir, args...).Stdout), "\n") {
			var e struct{ Type, Message string }
			if err := json.Unmarshal([]byte(line), &e); err == nil && e.Type == "operation-start" {
				got = e.Message
			}
		}
		if got != tc.want {
			t.Errorf("preview --target %v: operation-start says %q, want %q", tc.targets, got, tc.want)
		}
	}
}

// TestTargetedPreviewOfUndeployedUpstreams: up --target app on a fresh
// stack refuses, naming the upstream projects never deployed, exit 3 as
// nothing ran (it was 1); preview --target app must say the same (before, it listed four creates that up
// then never took, and --out wrote a plan up refused).
func TestTargetedPreviewOfUndeployedUpstreams(t *testing.T) {
	dir := deployable(t)
	for _, op := range [][]string{{"preview"}, {"up", "--yes"}} {
		r := run(t, dir, "", nil, append([]string{"-s", "dev", "--non-interactive", "--target", "app"}, op...)...)
		if r.Code != 3 || !strings.Contains(r.Stderr, "never deployed on stack dev: ingress (needed by app), network (needed by app), secrets (needed by app)") {
			t.Errorf("%s --target app on a fresh stack: exit %d, want 3 (nothing ran) naming the upstream projects\n%s", op, r.Code, r.Stderr)
		}
	}
}
