package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/runnerhq/runner/runner/term"
)

// flagCommand is one command line of the flag-position matrix.
type flagCommand struct {
	path []string // the command path: stack history
	args []string // its own flags and arguments ({ws}: the workspace)
}

func (c flagCommand) name() string { return strings.Join(c.path, " ") }

// argsIn returns the command's arguments for the workspace ws.
func (c flagCommand) argsIn(ws string) []string {
	args := slices.Clone(c.args)
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "{ws}", ws)
	}
	return args
}

// flagCommands holds every command, with arguments that make each run fast
// and free of side effects outside its workspace (preview and up stop at
// validation: the template's config lacks the admin password), in the
// same order every time (--parallel 1).
var flagCommands = []flagCommand{
	{path: []string{"providers"}},
	{path: []string{"show"}},
	{path: []string{"validate"}},
	{path: []string{"preview"}, args: []string{"--parallel", "1"}},
	{path: []string{"up"}, args: []string{"--yes", "--parallel", "1"}},
	{path: []string{"refresh"}, args: []string{"--parallel", "1", "--yes"}},
	{path: []string{"destroy"}, args: []string{"--yes", "--parallel", "1"}},
	{path: []string{"config", "ls"}},
	{path: []string{"config", "get"}, args: []string{"app:port"}},
	{path: []string{"config", "set"}, args: []string{"app:port", "18444"}},
	{path: []string{"config", "set"}, args: []string{"--secret", "app:adminPassword", "a-long-password"}},
	{path: []string{"config", "rm"}, args: []string{"app:port"}},
	{path: []string{"stack", "init"}, args: []string{"prod"}},
	{path: []string{"stack", "select"}, args: []string{"dev"}},
	{path: []string{"stack", "ls"}},
	{path: []string{"stack", "output"}},
	{path: []string{"stack", "export"}, args: []string{"--project", "app"}},
	{path: []string{"stack", "import"}, args: []string{"--project", "app", "--file", "{ws}/state.json"}},
	{path: []string{"stack", "history"}},
	{path: []string{"stack", "tag", "ls"}},
	{path: []string{"stack", "tag", "set"}, args: []string{"team", "blue"}},
	{path: []string{"stack", "tag", "rm"}, args: []string{"owner"}},
	{path: []string{"stack", "rm"}, args: []string{"prod", "--yes"}},
	{path: []string{"stack", "unlock"}, args: []string{"--project", "app"}},
	{path: []string{"stack", "repair"}, args: []string{"--project", "app"}},
	{path: []string{"version"}},
}

// globalFlag is one global flag of the matrix: given beside base (the
// flags it needs to mean something), it must change the result of the
// commands in affects, and check tells what it means.
type globalFlag struct {
	name    string
	words   func(ws string) []string
	base    func(ws string) []string
	affects func(cmd string) bool
	check   func(t *testing.T, cmd string, r flagRun)
}

// commands returns a predicate true for the commands named.
func commands(names ...string) func(string) bool {
	return func(cmd string) bool { return slices.Contains(names, cmd) }
}

// allBut returns a predicate true for every command but those named.
func allBut(names ...string) func(string) bool {
	return func(cmd string) bool { return !slices.Contains(names, cmd) }
}

// Commands that read no workspace, and those that name their stack as an
// argument.
var (
	noWorkspace = []string{"providers", "show", "version"}
	stackArg    = []string{"stack init", "stack select", "stack ls", "stack rm"}
)

func rootAndStack(ws string) []string { return []string{"--root", ws, "-s", "dev"} }

func rootOnly(ws string) []string { return []string{"--root", ws} }

var globalFlagsUnderTest = []globalFlag{
	{name: "--root", words: rootOnly, base: func(string) []string { return []string{"-s", "dev"} },
		affects: allBut(append(noWorkspace, "stack unlock")...)}, // no workspace has a lock
	{name: "-s", words: func(string) []string { return []string{"-s", "dev"} }, base: rootOnly,
		affects: allBut(append(noWorkspace, stackArg...)...)},
	{name: "-p", words: func(string) []string { return []string{"-p", "aws"} }, base: rootAndStack,
		affects: commands("show", "validate", "preview", "up", "refresh", "destroy"),
		check: func(t *testing.T, cmd string, r flagRun) {
			if cmd == "show" && !strings.Contains(r.out, "kubeconfig") {
				t.Errorf("show -p aws does not draw aws's graph:\n%s", r.out)
			}
		}},
	{name: "--env-file", words: func(string) []string { return []string{"--env-file=alt.env"} }, base: rootOnly,
		affects: allBut(append(noWorkspace, stackArg...)...)},
	{name: "--backend", words: func(ws string) []string { return []string{"--backend", "file://" + filepath.Join(ws, "alt-state")} },
		base: rootAndStack, affects: commands("refresh", "destroy", "stack ls", "stack output", "stack export",
			"stack import", "stack history", "stack tag ls", "stack tag set", "stack tag rm")},
	{name: "--non-interactive", words: func(string) []string { return []string{"--non-interactive"} }, base: rootAndStack,
		affects: commands()}, // buffers are no terminal: never interactive anyway
	{name: "--json", words: func(string) []string { return []string{"--json"} }, base: rootAndStack,
		// These print a sentence or nothing with or without --json; export
		// prints JSON anyway.
		affects: allBut("config set", "config rm", "stack init", "stack select", "stack tag set", "stack tag rm",
			"stack import", "stack unlock", "stack repair", "stack export"),
		check: func(t *testing.T, cmd string, r flagRun) {
			dec := json.NewDecoder(strings.NewReader(r.rawOut))
			for dec.More() {
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Errorf("%s --json: stdout is not JSON (%v):\n%s", cmd, err, r.rawOut)
					return
				}
			}
		}},
	{name: "-d", words: func(string) []string { return []string{"-d"} }, base: rootAndStack,
		affects: commands("refresh", "destroy")},
}

// flagRun is the outcome of one run: exit code, streams and the workspace's
// files afterwards, with what varies between runs (paths, times,
// ciphertexts) masked.
type flagRun struct {
	code         int
	out, err, fs string
	rawOut       string // stdout unmasked
	argv         []string
}

func (r flagRun) same(o flagRun) bool {
	return r.code == o.code && r.out == o.out && r.err == o.err && r.fs == o.fs
}

func (r flagRun) String() string {
	return fmt.Sprintf("runner %s\nexit %d\nstdout:\n%s\nstderr:\n%s\nfiles:\n%s", strings.Join(r.argv, " "), r.code, r.out, r.err, r.fs)
}

// TestGlobalFlagsAnywhere runs every command with every global flag before
// the command, after it and after its arguments: the three give the same
// result, which differs from the result without the flag wherever the flag
// matters.
func TestGlobalFlagsAnywhere(t *testing.T) {
	template := flagTemplate(t)
	for _, f := range globalFlagsUnderTest {
		for _, c := range flagCommands {
			t.Run(f.name+"/"+c.name()+" "+strings.Join(c.args, " "), func(t *testing.T) {
				positions := map[string]func(base, words, args []string) []string{
					"before the command": func(base, words, args []string) []string { return cat(base, words, c.path, args) },
					"after the command":  func(base, words, args []string) []string { return cat(base, c.path, words, args) },
					"after the args":     func(base, words, args []string) []string { return cat(base, c.path, args, words) },
				}
				results := map[string]flagRun{}
				if len(c.args) == 0 {
					delete(positions, "after the args") // the same command line as after the command
				}
				for pos, build := range positions {
					results[pos] = runInCopy(t, template, func(ws string) []string { return build(f.base(ws), f.words(ws), c.argsIn(ws)) })
				}
				ref := results["before the command"]
				for pos, r := range results {
					if !r.same(ref) {
						t.Fatalf("%s %s: %s differs from before the command\n--- %s:\n%s\n--- before the command:\n%s", f.name, c.name(), pos, pos, r, ref)
					}
				}
				if !f.affects(c.name()) {
					return
				}
				without := runInCopy(t, template, func(ws string) []string { return cat(f.base(ws), c.path, c.argsIn(ws)) })
				if without.same(ref) {
					t.Fatalf("%s changes nothing for %s:\n%s", f.name, c.name(), ref)
				}
				if f.check != nil {
					f.check(t, c.name(), ref)
				}
			})
		}
	}
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// flagState is the state of project app in the template: its stack
// resource with one output.
const flagState = `{"version": 3, "deployment": {"manifest": {"time": "2024-01-01T00:00:00Z", "magic": "", "version": ""},
  "resources": [{"urn": "urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev", "custom": false, "type": "pulumi:pulumi:Stack",
    "outputs": {"url": "https://127.0.0.1:18443"}}]}}`

// flagTemplate makes the workspace every run starts from: stack dev with a
// salt and a port but no admin password, an environment file alt.env
// selecting dev, and in the default backend a tag and the state of project
// app.
func flagTemplate(t *testing.T) string {
	t.Helper()
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "flags-test-passphrase")
	for _, k := range []string{"PULUMI_STACK", "RUNNER_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE_FILE", "CI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	ws := t.TempDir()
	for name, data := range map[string]string{"alt.env": "PULUMI_STACK=dev\n", "state.json": flagState} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-s", "dev", "config", "set", "app:port", "18443"},
		{"-s", "dev", "stack", "tag", "set", "owner", "me"},
		{"-s", "dev", "stack", "import", "--project", "app", "--file", filepath.Join(ws, "state.json")},
	} {
		if out, errOut, code := runTest(append([]string{"--root", ws}, args...)...); code != 0 {
			t.Fatalf("preparing the workspace: runner %v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	os.Remove(filepath.Join(ws, "config", "pulumi", "environment")) // no stack selected
	return ws
}

// runInCopy runs the command line args(ws) in a fresh copy ws of template.
func runInCopy(t *testing.T, template string, args func(ws string) []string) flagRun {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.CopyFS(ws, os.DirFS(template)); err != nil {
		t.Fatal(err)
	}
	// Each run starts in an empty folder (the default --root) and without
	// PULUMI_STACK.
	t.Chdir(t.TempDir())
	os.Unsetenv("PULUMI_STACK")
	argv := args(ws)
	var out, errb bytes.Buffer
	io := &term.IO{In: strings.NewReader(""), Out: &out, Err: &errb, NoColor: true}
	code := run(context.Background(), io, append([]string{"runner"}, argv...), fastKeys)
	return flagRun{code: code, rawOut: out.String(), out: mask(out.String(), ws), err: mask(errb.String(), ws), fs: files(t, ws), argv: argv}
}

var (
	timeRE       = regexp.MustCompile(`\d{4}-?\d\d-?\d\d[T ]\d\d:?\d\d:?\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
	durationRE   = regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s)\b`)
	durationMSRE = regexp.MustCompile(`"duration_ms":\s*\d+`)
	cipherRE     = regexp.MustCompile(`v1:[A-Za-z0-9+/=:]+`)
	pidRE        = regexp.MustCompile(`"(pid|PID)":\s*\d+`)
	// Pulumi's update records: named by Unix nanoseconds, times in seconds.
	recordRE   = regexp.MustCompile(`-\d+\.history\.json`)
	unixTimeRE = regexp.MustCompile(`"(startTime|endTime)":\s*\d+`)
)

// mask hides what differs between two runs of one command line.
func mask(s, ws string) string {
	s = strings.ReplaceAll(s, ws, "<ws>")
	s = cipherRE.ReplaceAllString(s, "v1:<ciphertext>")
	s = timeRE.ReplaceAllString(s, "<time>")
	s = recordRE.ReplaceAllString(s, "-<ns>.history.json")
	s = unixTimeRE.ReplaceAllString(s, `"$1":<unix>`)
	s = durationMSRE.ReplaceAllString(s, `"duration_ms":<n>`)
	s = durationRE.ReplaceAllString(s, "<duration>")
	s = strings.ReplaceAll(s, " (<duration>)", "") // shown only for slow steps
	return pidRE.ReplaceAllString(s, `"pid":<n>`)
}

// files lists the workspace's files with their masked contents.
func files(t *testing.T, ws string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(ws, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(ws, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, mask(rel, ws)+": "+mask(string(data), ws))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
