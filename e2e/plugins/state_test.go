package plugins

import (
	"encoding/json"
	"strings"
	"testing"
)

// outputs returns project's stack outputs through `runner stack output`.
func (e *env) outputs(project string, showSecrets bool) map[string]any {
	e.t.Helper()
	args := []string{"stack", "output", "--json", "--project", project}
	if showSecrets {
		args = append(args, "--show-secrets")
	}
	r := e.ok(args...)
	out := map[string]any{}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		e.t.Fatalf("stack output --json: %v\n%s", err, r)
	}
	return out
}

// stateResource is one resource of `runner stack export`.
type stateResource struct {
	URN     string         `json:"urn"`
	Type    string         `json:"type"`
	ID      string         `json:"id"`
	Custom  bool           `json:"custom"`
	Inputs  map[string]any `json:"inputs"`
	Outputs map[string]any `json:"outputs"`
	// InitErrors are the reasons a create failed to initialize.
	InitErrors []string `json:"initErrors"`
}

// exported returns project's resources in state by URN name (the part
// after the last "::"), through `runner stack export`.
func (e *env) exported(project string, showSecrets bool) map[string]stateResource {
	e.t.Helper()
	args := []string{"stack", "export", "--project", project}
	if showSecrets {
		args = append(args, "--show-secrets")
	}
	r := e.ok(args...)
	var doc struct {
		Deployment struct {
			Resources []stateResource `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		e.t.Fatalf("stack export: %v\n%s", err, r)
	}
	out := map[string]stateResource{}
	for _, res := range doc.Deployment.Resources {
		out[res.URN[strings.LastIndex(res.URN, "::")+2:]] = res
	}
	return out
}

// events returns the JSON events of a --json run's stdout.
func events(stdout string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(stdout, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

// block returns project's block of plain output: from its "── <project> ·"
// header to the next header or the summary.
func block(stdout, project string) string {
	i := strings.Index(stdout, "── "+project+" ·")
	if i < 0 {
		return ""
	}
	rest := stdout[i+1:]
	end := len(rest)
	for _, mark := range []string{"\n── ", "\nSummary"} {
		if j := strings.Index(rest, mark); j >= 0 && j < end {
			end = j
		}
	}
	return stdout[i : i+1+end]
}

// destroyAll runs destroy and fails the test unless the store is empty.
func (e *env) destroyAll() {
	e.t.Helper()
	r := e.ok("destroy", "--yes")
	if rs := e.resources(); len(rs) != 0 {
		e.t.Fatalf("destroy left %d resources in the store: %s", len(rs), r)
	}
}

// ids returns the set of the store's resource IDs.
func (e *env) ids() map[string]bool {
	e.t.Helper()
	out := map[string]bool{}
	for id := range e.resources() {
		out[id] = true
	}
	return out
}

// must fails the test when s does not contain every one of subs.
func must(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("%s: %q is missing from:\n%s", what, sub, s)
		}
	}
}
