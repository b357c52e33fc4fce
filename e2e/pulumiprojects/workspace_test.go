package pulumiprojects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/golden"
)

// twoProjects is a workspace of two project folders, one depending on
// the other.
var twoProjects = map[string]string{
	"infra/net/Pulumi.yaml": "name: net\nruntime: yaml\n",
	"apps/web/Pulumi.yaml":  "name: web\nruntime:\n  name: nodejs\n  options: {typescript: true}\nconfig:\n  token:\n    type: string\n    secret: true\n",
	"runner.yaml": `providers:
  web:
    description: network and the web app
    projects:
      net: {path: infra/net}
      web: {path: apps/web, dependsOn: [net], category: application, on_success: scripts/notify.sh}
    questions:
      - {key: "web:replicas", description: "web replicas", default: "2"}
`,
}

// TestWorkspaceShow: the environments of runner.yaml are listed beside the
// built-in providers and drawn in every format of show.
func TestWorkspaceShow(t *testing.T) {
	w := newWS(t)
	w.write(twoProjects)
	list := w.ok("providers").Stdout
	if !strings.Contains(list, "web              2         network and the web app") || !strings.Contains(list, "local (default)") {
		t.Errorf("providers lists:\n%s", list)
	}
	for _, f := range []string{"tree", "dot", "mermaid", "json"} {
		golden.Check(t, "show."+f+".golden", []byte(w.ok("-p", "web", "show", "--format", f).Stdout))
	}
}

// TestNoWorkspaceFile: without runner.yaml nothing changes.
func TestNoWorkspaceFile(t *testing.T) {
	w := newWS(t)
	list := w.ok("providers").Stdout
	if strings.Contains(list, "\nweb ") || !strings.Contains(list, "local (default)") || !strings.Contains(list, "\naws ") {
		t.Errorf("providers lists:\n%s", list)
	}
	w.fails(2, "-p", "web", "show")
}

// TestBadWorkspaceFile: every problem of runner.yaml and the project files
// it names is exit 3 with file and line, in one run, before anything runs.
func TestBadWorkspaceFile(t *testing.T) {
	w := newWS(t)
	w.write(map[string]string{
		"infra/net/Pulumi.yaml": "name: net\nruntime: yaml\n",
		"apps/Readme":           "no project here\n",
		"bad/Pulumi.yaml":       "name: bad\nruntime: yaml\nconfig:\n  n:\n    type: number\n",
		"runner.yaml": `providers:
  web:
    descripton: typo
    projects:
      net: {path: infra/net, dependsOn: [web]}
      web: {path: infra/net, dependsOn: [net]}
      gone: {path: nowhere}
      empty: {path: apps}
      bad: {path: bad, dependsOn: [nope]}
    questions:
      - {key: "noNamespace", bogus: 1}
  local:
    projects:
      net: {path: infra/net}
`,
	})
	for _, args := range [][]string{{"providers"}, {"-p", "web", "show"}, {"-p", "web", "-s", "dev", "up", "--yes"}, {"-p", "local", "show"}} {
		r := w.fails(3, args...)
		file := filepath.Join(w.dir, "runner.yaml")
		for _, want := range []string{
			file + `:3: environment web: unknown key "descripton"`,
			file + `:6: project web: its Pulumi.yaml`,
			file + ":7: project gone: the folder " + filepath.Join(w.dir, "nowhere") + " does not exist",
			file + ":8: project empty: the folder " + filepath.Join(w.dir, "apps") + " has no Pulumi.yaml",
			filepath.Join(w.dir, "bad", "Pulumi.yaml") + `:5: config n: type "number"`,
			file + `:11: environment web question: unknown key "bogus"`,
			file + `:11: environment web question key "noNamespace" must be namespace:name`,
			file + ":12: the environment local takes the name of a built-in provider",
		} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("runner %v: the error does not say %q:\n%s", args, want, r.Stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "config")); err == nil {
		t.Error("a refused run wrote the config folder")
	}
}

// TestProjectNameRunnerCannotKeep: a project named ".." or "-a" (which
// Pulumi's rule allows) is refused by validate and up with exit 3 naming
// its Pulumi.yaml and line, before anything runs; before, validate passed
// and up failed with exit 1 at the stack lock, after the program's host
// had started.
func TestProjectNameRunnerCannotKeep(t *testing.T) {
	for _, name := range []string{"..", "-a"} {
		w := newWS(t)
		w.write(map[string]string{
			"p/Pulumi.yaml": "name: '" + name + "'\nruntime: yaml\n",
			"runner.yaml":   "providers:\n  e:\n    projects:\n      '" + name + "': {path: p}\n",
		})
		want := filepath.Join(w.dir, "p", "Pulumi.yaml") + ":1: name: \"" + name + "\" is not a valid project name"
		for _, args := range [][]string{{"-p", "e", "-s", "dev", "validate"}, {"-p", "e", "-s", "dev", "up", "--yes"}} {
			if r := w.fails(3, args...); !strings.Contains(r.Stderr, want) {
				t.Errorf("runner %v: the error does not say %q:\n%s", args, want, r.Stderr)
			}
		}
	}
}

// TestWorkspaceCycle: a cycle is named with its path and the line that
// closes it.
func TestWorkspaceCycle(t *testing.T) {
	w := newWS(t)
	w.write(map[string]string{
		"a/Pulumi.yaml": "name: a\nruntime: yaml\n",
		"b/Pulumi.yaml": "name: b\nruntime: yaml\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      a: {path: a, dependsOn: [b]}\n      b:\n        path: b\n        dependsOn:\n          - a\n",
	})
	r := w.fails(3, "-p", "e", "show")
	if want := filepath.Join(w.dir, "runner.yaml") + ":8: environment e has a cycle: a -> b -> a"; !strings.Contains(r.Stderr, want) {
		t.Errorf("the error does not say %q:\n%s", want, r.Stderr)
	}
}

// TestRuntimeMissing: a runtime that cannot start is exit 3 naming what is
// missing and how to get it, before anything (the stack config included)
// is written.
func TestRuntimeMissing(t *testing.T) {
	w := newWS(t)
	w.write(twoProjects)
	w.extra = append(w.extra, "PATH="+os.Getenv("PATH"), "PULUMI_IGNORE_AMBIENT_PLUGINS=1")
	r := w.fails(3, "-p", "web", "-s", "dev", "up", "--yes")
	for _, want := range []string{
		"project net (runtime yaml) cannot run: pulumi-language-yaml is neither on PATH nor in the plugin cache",
		"project web (runtime nodejs) cannot run: @pulumi/pulumi is not installed in " + filepath.Join(w.dir, "apps", "web"),
		"run `npm install` in " + filepath.Join(w.dir, "apps", "web"),
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the error does not say %q:\n%s", want, r.Stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "config")); err == nil {
		t.Error("a refused up wrote the config folder")
	}
	w.extra = append(w.extra, "PATH=/nonexistent")
	r = w.fails(3, "-p", "web", "-s", "dev", "up", "--yes")
	if !strings.Contains(r.Stderr, "node is not on PATH; install Node.js") {
		t.Errorf("without node the error does not say so:\n%s", r.Stderr)
	}
}
