package pulumiprojects

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jsProject writes a TypeScript project named name in folder dir of the
// workspace, its node_modules linked.
func (w *ws) jsProject(dir, name, code string) {
	w.t.Helper()
	tsconfig, err := os.ReadFile(filepath.Join("testdata", "ts", "tsconfig.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	w.write(map[string]string{
		dir + "/Pulumi.yaml":   fmt.Sprintf("name: %s\nruntime: nodejs\n", name),
		dir + "/package.json":  `{"name": "` + name + `", "main": "index.ts"}`,
		dir + "/tsconfig.json": string(tsconfig),
		dir + "/index.ts":      "import * as pulumi from \"@pulumi/pulumi\";\n" + code,
	})
	if err := os.Symlink(nodeModules(w.t), filepath.Join(w.dir, dir, "node_modules")); err != nil {
		w.t.Fatal(err)
	}
}

// TestProgramSecrets: a program that prints a secret config value shows it
// masked; node's process environment never holds it (it comes through a
// pipe); a program's own error is printed once.
func TestProgramSecrets(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.jsProject("p", "p", `
import * as fs from "fs";
const cfg = new pulumi.Config();
const token = cfg.require("token");
console.log("the token is " + token);
console.log("environ holds it: " + fs.readFileSync("/proc/self/environ", "utf8").includes(token));
if (cfg.get("fail")) { throw new Error("boom-" + "unique"); }
`)
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      p: {path: p}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "p:token", secretToken)
	r := w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if !strings.Contains(r.Stdout, "the token is [secret]") || !strings.Contains(r.Stdout, "environ holds it: false") {
		t.Errorf("the program's output:\n%s", r.Stdout)
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "p:fail", "yes")
	r = w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if n := strings.Count(r.Stdout+r.Stderr, "boom-unique"); n != 1 {
		t.Errorf("the program's error is printed %d times:\nstdout:\n%s\nstderr:\n%s", n, r.Stdout, r.Stderr)
	}
	noSecret(t, w.dir, []string{r.Stdout, r.Stderr})
}

// TestBadMainIsInvalid: a main that does not exist stops up (exit 3)
// before anything is written.
func TestBadMainIsInvalid(t *testing.T) {
	w := newWS(t)
	w.write(map[string]string{
		"p/Pulumi.yaml": "name: p\nruntime: yaml\nmain: src/\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      p: {path: p}\n",
	})
	r := w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	if want := filepath.Join(w.dir, "p", "Pulumi.yaml") + ":3: main: src/ does not exist in " + filepath.Join(w.dir, "p"); !strings.Contains(r.Stderr, want) {
		t.Errorf("the error does not say %q:\n%s", want, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "config")); err == nil {
		t.Error("a refused up wrote the config folder")
	}
}

// TestPulumiYAMLProblemsNameTheirLine: a YAML program with aliases
// (which Pulumi YAML's host refuses) is exit 3 before anything runs,
// naming each alias's file and line; a Pulumi.yaml that is not YAML names
// its line too.
func TestPulumiYAMLProblemsNameTheirLine(t *testing.T) {
	w := newWS(t)
	w.write(map[string]string{
		"p/Pulumi.yaml": "name: p\nruntime: yaml\nvariables:\n  base: &base\n    value: v\nresources:\n  t:\n    type: testprov:index:Thing\n    properties: *base\noutputs:\n  o: *base\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      p: {path: p}\n",
	})
	r := w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	file := filepath.Join(w.dir, "p", "Pulumi.yaml")
	for _, want := range []string{file + ":9: the alias *base: Pulumi YAML does not support aliases", file + ":11: the alias *base"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the error does not say %q:\n%s", want, r.Stderr)
		}
	}
	for _, dir := range []string{"config", ".runner"} {
		if _, err := os.Stat(filepath.Join(w.dir, dir)); err == nil {
			t.Errorf("a refused up wrote %s", dir)
		}
	}
	w.write(map[string]string{"p/Pulumi.yaml": "name: p\nruntime: yaml\nconfig:\n  a: [1\n"})
	r = w.fails(3, "-p", "e", "-s", "dev", "validate")
	if want := file + ":3: not valid YAML"; !strings.Contains(r.Stderr, want) {
		t.Errorf("the error does not say %q:\n%s", want, r.Stderr)
	}
}

// children returns the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			p, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			out = append(out, p)
		}
	}
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// TestKilledRunnerLeavesNoProgram: kill -9 of runner while a program runs
// leaves neither the program nor the language host behind.
func TestKilledRunnerLeavesNoProgram(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.jsProject("js", "js", `new pulumi.CustomResource("testprov:index:Thing", "slow", {sleepMs: 60000});`)
	w.write(map[string]string{
		"y/Pulumi.yaml": "name: y\nruntime: yaml\nresources:\n  slow:\n    type: testprov:index:Thing\n    properties:\n      sleepMs: 60000\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      js: {path: js}\n      y: {path: y}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	cmd := exec.Command(binary, "--root", w.dir, "-p", "e", "-s", "dev", "up", "--yes")
	cmd.Env = w.environ()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var kids []int
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && len(kids) < 3 { // node, the YAML host, the plugin
		time.Sleep(200 * time.Millisecond)
		kids = children(cmd.Process.Pid)
	}
	if len(kids) < 3 {
		cmd.Process.Kill()
		t.Fatalf("runner started %d processes, want node, the YAML host and the plugin", len(kids))
	}
	time.Sleep(time.Second) // the programs register their resources
	var all []int
	var descend func(p int)
	descend = func(p int) {
		for _, c := range children(p) {
			all = append(all, c)
			descend(c)
		}
	}
	descend(cmd.Process.Pid)
	if len(all) < 5 { // node and the YAML host behind their keepers, the host's own plugin, runner's plugin
		t.Errorf("runner's processes: %v, want at least five", all)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(2 * time.Second)
	for _, p := range all {
		if alive(p) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			t.Errorf("process %d (%s) outlived runner", p, strings.ReplaceAll(string(b), "\x00", " "))
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// TestJavaScriptProgramError: a plain JavaScript program (typescript:
// false) that throws fails the project with its error printed once, and
// at once. The SDK formats the error with util.inspect(err, {colors:
// true}), on which Node 20 loops on a source-mapped frame of
// @pulumi/pulumi (nodejs/node#64011) until its string or its heap runs
// out: minutes, then the error (or only an out-of-memory crash, with the
// bounded heap this program is given, as users often do). runner's
// preload keeps colour out of an error's inspection.
func TestJavaScriptProgramError(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.write(map[string]string{
		"p/Pulumi.yaml":  "name: p\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --max-old-space-size=256\n",
		"p/package.json": `{"name": "p", "main": "index.js"}`,
		"p/index.js":     "\"use strict\";\nrequire(\"@pulumi/pulumi\");\nthrow new Error(\"boom-\" + \"unique\");\n",
		"runner.yaml":    "providers:\n  e:\n    projects:\n      p: {path: p}\n",
	})
	if err := os.Symlink(nodeModules(t), filepath.Join(w.dir, "p", "node_modules")); err != nil {
		t.Fatal(err)
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if n := strings.Count(r.Stdout+r.Stderr, "boom-unique"); n != 1 {
		t.Errorf("the program's error is printed %d times\n%s%s", n, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "  error: Running program") {
		t.Errorf("the program's error is not shown as an error:\n%s", r.Stdout)
	}
	// A program killed by a signal is named, not the keeper in front of it.
	w.write(map[string]string{"p/index.js": "require(\"@pulumi/pulumi\");\nprocess.kill(process.pid, \"SIGABRT\");\n"})
	r = w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if want := `node exited with status 134 (killed by signal "aborted")`; !strings.Contains(r.Stdout, want) {
		t.Errorf("the failure does not say %q:\n%s%s", want, r.Stdout, r.Stderr)
	}
}

// TestPulumiYAMLMergeKeys: Pulumi.yaml's YAML merge keys (`<<: *base`) are
// read as the Pulumi CLI reads them, at the top and in the config block:
// the merged runtime is the project's, and a merged declaration of a
// secret without a default is asked for. Before, `<<` was an unknown key
// and the project had no runtime.
func TestPulumiYAMLMergeKeys(t *testing.T) {
	w := newWS(t)
	w.write(map[string]string{
		"p/Pulumi.yaml": "x-base: &base\n  runtime: nodejs\nname: p\n<<: *base\nx-decl: &decl\n  token: {type: string, secret: true}\nconfig:\n  <<: *decl\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      p: {path: p}\n",
	})
	r := w.fails(3, "--non-interactive", "-p", "e", "-s", "dev", "validate")
	if strings.Contains(r.Stderr, "runtime: is missing") || !strings.Contains(r.Stderr, "config set --secret p:token") {
		t.Errorf("the merged runtime or config declaration was not read:\n%s", r.Stderr)
	}
}
