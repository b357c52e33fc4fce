package e2e

import (
	"encoding/json"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestPreviewListsWhatUpDoes is the scenario of a new user: after up,
// `config set app:port <free port>`, then preview. The preview must list
// the steps up then takes, downstream ones included: the network project
// replaces its port, and the app project, which reads the port by stack
// reference, updates its service config and replaces its service.
func TestPreviewListsWhatUpDoes(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ok(t, dir, "-s", "dev", "config", "set", "app:port", port)

	preview := changingSteps(t, ok(t, dir, "--json", "-s", "dev", "--non-interactive", "preview").Stdout)
	up := changingSteps(t, ok(t, dir, "--json", "-s", "dev", "--non-interactive", "up", "--yes").Stdout)
	if strings.Join(preview, "\n") != strings.Join(up, "\n") {
		t.Fatalf("preview listed %d steps:\n  %s\nup took %d:\n  %s", len(preview), strings.Join(preview, "\n  "),
			len(up), strings.Join(up, "\n  "))
	}
	for _, want := range []string{
		"network urn:pulumi:dev::network::process:index:Port::app-port create-replacement",
		"app urn:pulumi:dev::app::file:index:File::service-config update",
		"app urn:pulumi:dev::app::process:index:Process::service create-replacement",
	} {
		if !listed(preview, want) {
			t.Errorf("preview does not list %q:\n  %s", want, strings.Join(preview, "\n  "))
		}
	}
	url := "https://127.0.0.1:" + port + "/"
	if code, body := get(t, dir, url, "", ""); code != 200 {
		t.Errorf("GET %s after up: %d %s", url, code, body)
	}
}

// changingSteps parses a --json event stream and returns its steps other
// than same as "project URN op", sorted.
func changingSteps(t *testing.T, stream string) []string {
	t.Helper()
	var steps []string
	for _, line := range strings.Split(strings.TrimSpace(stream), "\n") {
		var e struct {
			Type    string `json:"type"`
			Project string `json:"project"`
			Op      string `json:"op"`
			URN     string `json:"urn"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("a --json line is not JSON (%v): %s", err, line)
		}
		if (e.Type == "step-done" || e.Type == "step-failed") && e.Op != "same" {
			steps = append(steps, e.Project+" "+e.URN+" "+e.Op)
		}
	}
	sort.Strings(steps)
	return steps
}

func listed(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
