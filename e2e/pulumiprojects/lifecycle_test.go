package pulumiprojects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// secretToken is the chain's secret config value: it must never show.
const secretToken = "s3cr3t-token-value"

// runtimes are the test programs' runtimes: testdata folder, and the
// config that makes the chain fail after a and b.
var runtimes = []struct{ dir, failAt string }{
	{"yaml", "value"}, // c's Check fails
	{"ts", "c"},       // the program throws before c
	{"go", "c"},       // the program returns an error before c
}

// values returns the "value" input of each resource in the store, sorted.
func values(t *testing.T, s providertest.Store) []string {
	t.Helper()
	rs, err := s.Resources()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		in, _ := r["inputs"].(map[string]any)
		v, _ := in["value"].(string)
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// outputs returns a project's stack outputs in environment e.
func (w *ws) outputs(project string) map[string]any {
	w.t.Helper()
	return w.outputsOf("e", project)
}

// outputsOf returns a project's stack outputs (stack output --json).
func (w *ws) outputsOf(env, project string) map[string]any {
	w.t.Helper()
	r := w.ok("-p", env, "-s", "dev", "--json", "stack", "output", "--project", project)
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		w.t.Fatalf("stack output: %v\n%s", err, r.Stdout)
	}
	return out
}

// TestLifecycle runs, for each runtime, a chain of three resources with a
// secret config value and stack outputs, and a second project reading
// them by stack reference: up, a no-op second up, a changed input
// previewed then applied, a failure midway that deletes nothing, destroy.
func TestLifecycle(t *testing.T) {
	for _, rt := range runtimes {
		t.Run(rt.dir, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, rt.dir == "yaml")
			w.project(rt.dir, "chain", "chain", "chain")
			w.project(rt.dir, "reader", "reader", "reader")
			w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      chain: {path: chain}\n      reader: {path: reader, dependsOn: [chain]}\n"})
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "chain:token", secretToken)
			var logs []string
			check := func(r result) result {
				logs = append(logs, r.Stdout, r.Stderr)
				return r
			}
			check(w.ok("-p", "e", "-s", "dev", "up", "--yes"))
			if got, want := values(t, store), []string{"p-a", "p-a-b", "p-a-b-c", "p-a-b-c"}; !equal(got, want) {
				t.Fatalf("after up the store holds %v, want %v", got, want)
			}
			outs := w.outputs("reader")
			if outs["got"] != "p-a-b-c" || outs["token"] != "[secret]" {
				t.Errorf("reader's outputs: %v", outs)
			}
			r := check(w.ok("-p", "e", "-s", "dev", "up", "--yes"))
			if strings.Contains(r.Stdout, "update") || strings.Contains(r.Stdout, "create") {
				t.Errorf("the second up changed something:\n%s", r.Stdout)
			}
			w.ok("-p", "e", "-s", "dev", "config", "set", "chain:prefix", "q")
			r = check(w.ok("-p", "e", "-s", "dev", "preview"))
			if !strings.Contains(r.Stdout, "update") {
				t.Errorf("the preview of a changed input shows no update:\n%s", r.Stdout)
			}
			if got := values(t, store); got[0] != "p-a" {
				t.Errorf("preview changed the store: %v", got)
			}
			check(w.ok("-p", "e", "-s", "dev", "up", "--yes"))
			if got, want := values(t, store), []string{"q-a", "q-a-b", "q-a-b-c", "q-a-b-c"}; !equal(got, want) {
				t.Fatalf("after the change the store holds %v, want %v", got, want)
			}
			w.ok("-p", "e", "-s", "dev", "config", "set", "chain:failAt", rt.failAt)
			r = check(w.fails(1, "-p", "e", "-s", "dev", "up", "--yes"))
			if got := values(t, store); len(got) != 4 {
				t.Errorf("a failed program deleted resources: the store holds %v", got)
			}
			w.ok("-p", "e", "-s", "dev", "config", "rm", "chain:failAt")
			check(w.ok("-p", "e", "-s", "dev", "destroy", "--yes"))
			if got := values(t, store); len(got) != 0 {
				t.Errorf("after destroy the store holds %v", got)
			}
			noSecret(t, w.dir, logs)
		})
	}
}

func equal(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// noSecret fails if the secret token shows in the output or any file of
// the workspace but the programs' own folders.
func noSecret(t *testing.T, dir string, logs []string) {
	t.Helper()
	for _, l := range logs {
		if strings.Contains(l, secretToken) {
			t.Errorf("the secret shows in the output:\n%s", l)
		}
	}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if info.Mode()&os.ModeSymlink != 0 || strings.Contains(p, "node_modules") {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), secretToken) {
			t.Errorf("the secret is in plain text in %s", p)
		}
		return nil
	})
}
