package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONStreamErrorHasTheStreamVersion: with --json, an operation that
// fails ends its stream with an error object; like every other line of the
// stream it carries "v": 1, so that a reader checks one version per line.
func TestJSONStreamErrorHasTheStreamVersion(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "config", "set", "app:port", "80")
	for _, args := range [][]string{
		{"--json", "-s", "dev", "--non-interactive", "preview"},
		{"--json", "-s", "prod", "--non-interactive", "preview"},
	} {
		r := run(t, dir, "", nil, args...)
		if r.Code == 0 {
			t.Fatalf("runner %s succeeded; the test needs it to fail", strings.Join(args, " "))
		}
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		for _, line := range lines {
			var e map[string]any
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("runner %s: a line is not JSON: %q", strings.Join(args, " "), line)
			}
			if e["v"] != 1.0 {
				t.Errorf("runner %s: a line without \"v\": 1: %s", strings.Join(args, " "), line)
			}
		}
		if !strings.Contains(lines[len(lines)-1], `"type":"error"`) {
			t.Errorf("runner %s: the stream does not end with the error: %s", strings.Join(args, " "), r.Stdout)
		}
	}
}
