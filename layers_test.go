// Package layers_test checks that imports run one way through the module:
// cmd/runner -> runner -> providers -> projects -> engine, with config
// beside them (imported by runner and cmd only; it may use the engine's
// value packages).
package layers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/runnerhq/runner"

// layers are the module's layers from the top; a package may import its
// own layer and those below it.
var layers = []string{"cmd/runner", "runner", "providers", "projects", "engine"}

// configMayImport are the engine packages config may use: values, secrets
// and the atomic file writes.
var configMayImport = []string{"engine/resource", "engine/state", "engine/atomicfile"}

// engineMayImport are, for the engine's packages that a plan's life is
// split into below the engine root, the only module packages each may
// import (besides themselves, from their external tests): what programs
// use and the plan values know nothing of the execution, the backend or
// each other.
var engineMayImport = map[string][]string{
	"engine/program": {"engine/resource"},
	"engine/plan":    {"engine/resource", "engine/state"},
	// The plugin wire encoding knows only the values.
	"engine/pluginhost/wire": {"engine/resource"},
	// The plugin host runs plugins: values, their encoding and the cache
	// (and, in its tests, the test plugin).
	"engine/pluginhost": {"engine/resource", "engine/pluginhost/wire", "engine/plugincache", "engine/pluginhost/providertest"},
	// The plugin cache is files and downloads only; it words its size
	// limits as the bounded file reads word theirs.
	"engine/plugincache": {"internal/boundedfile"},
	// The rooms of the stream (docs/architecture.md): a source feeds
	// registrations and knows only programs and values; the monitor serves
	// a hosted program and knows only the source's seam.
	"engine/source":  {"engine/program", "engine/resource", "engine/state", "engine/walk"},
	"engine/monitor": {"engine/source", "engine/resource", "engine/state", "engine/pluginhost"},
	// The run state holds an operation in memory: it decides and runs
	// nothing.
	"engine/runstate": {"engine/plan", "engine/resource", "engine/source", "engine/state"},
	// The step generator decides steps on the run state and never runs
	// one: no executor, no backend.
	"engine/stepgen": {"engine/runstate", "engine/plan", "engine/resource", "engine/source", "engine/state"},
	// The step executor runs decided steps and writes the journal: it
	// decides none.
	"engine/stepexec": {"engine/runstate", "engine/plan", "engine/resource", "engine/source", "engine/state", "engine/program", "engine/backend"},
	"engine/walk":     {},
}

// layer returns the index in layers of the module package rel (a path
// inside the module), -1 for config and -2 for a package of no layer.
func layer(rel string) int {
	if rel == "config" || strings.HasPrefix(rel, "config/") {
		return -1
	}
	for i, l := range layers {
		if rel == l || strings.HasPrefix(rel, l+"/") {
			return i
		}
	}
	return -2
}

// check returns why importer may not import imported (both paths inside
// the module), or "" when it may.
func check(importer, imported string) string {
	if allowed, ok := engineMayImport[importer]; ok && imported != importer && !hasPrefix(imported, allowed) {
		return fmt.Sprintf("%s imports %s: it may import only %s", importer, imported, strings.Join(allowed, ", "))
	}
	from, to := layer(importer), layer(imported)
	switch {
	case from == -2 || to == -2:
		return ""
	case to == -1:
		if from == 0 || from == 1 || from == -1 {
			return ""
		}
		return fmt.Sprintf("%s imports %s: only cmd/runner and runner may import config", importer, imported)
	case from == -1:
		if hasPrefix(imported, configMayImport) {
			return ""
		}
		return fmt.Sprintf("%s imports %s: config may import only the engine's value packages (%s)", importer, imported, strings.Join(configMayImport, ", "))
	case to < from:
		return fmt.Sprintf("%s imports %s: %s may not import %s (the layers run %s)",
			importer, imported, layers[from], layers[to], strings.Join(layers, " -> "))
	}
	return ""
}

// hasPrefix reports whether pkg is one of pkgs or inside one of them.
func hasPrefix(pkg string, pkgs []string) bool {
	for _, p := range pkgs {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

func TestCheck(t *testing.T) {
	tests := []struct {
		importer, imported string
		want               string // part of the message; "" when allowed
	}{
		{"cmd/runner", "runner", ""},
		{"cmd/runner", "config", ""},
		{"runner", "providers/builtin", ""},
		{"runner", "engine/backend", ""},
		{"runner/graph", "runner/schedule", ""},
		{"providers/local", "projects/local/app", ""},
		{"projects/local/app", "engine/plugins/file", ""},
		{"config", "engine/resource", ""},
		{"config", "engine/atomicfile", ""},
		{"projects/local/app", "providers/local/service", "projects/local/app imports providers/local/service: projects may not import providers"},
		{"engine", "runner/event", "engine imports runner/event: engine may not import runner"},
		{"runner", "cmd/runner", "runner imports cmd/runner"},
		{"providers/aws", "config", "only cmd/runner and runner may import config"},
		{"engine/backend", "config", "only cmd/runner and runner may import config"},
		{"config", "engine/backend", "config may import only the engine's value packages"},
		{"config", "runner", "config may import only"},
		{"engine", "engine/program", ""},
		{"engine/plan", "engine/state/statetest", ""},
		{"engine/program", "engine/backend", "engine/program imports engine/backend: it may import only engine/resource"},
		{"engine/plan", "engine", "engine/plan imports engine: it may import only"},
		{"engine/plan", "engine/program", "engine/plan imports engine/program"},
		{"engine/plugincache", "engine/resource", "engine/plugincache imports engine/resource: it may import only"},
		{"engine/stepgen", "engine/runstate", ""},
		{"engine/stepgen", "engine/stepexec", "engine/stepgen imports engine/stepexec: it may import only"},
		{"engine/stepexec", "engine/stepgen", "engine/stepexec imports engine/stepgen: it may import only"},
		{"engine/runstate", "engine/stepgen", "engine/runstate imports engine/stepgen: it may import only"},
		{"engine/source", "engine/monitor", "engine/source imports engine/monitor: it may import only"},
	}
	for _, tt := range tests {
		got := check(tt.importer, tt.imported)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("check(%s, %s) = %q, want %q", tt.importer, tt.imported, got, tt.want)
		}
	}
}

// TestImportsRunOneWay lists every package of the module with its imports
// (of its code and of its tests) and fails on each one against the layers.
func TestImportsRunOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for dec.More() {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		n++
		from, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue
		}
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			to, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if why := check(from, to); why != "" {
				t.Error(why)
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list listed %d packages; expected the whole module", n)
	}
}
