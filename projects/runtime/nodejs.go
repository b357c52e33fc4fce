package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
)

// node runs a Node.js program (JavaScript or TypeScript) as Pulumi's
// nodejs host does: node on @pulumi/pulumi's run script from the
// project's node_modules. The stack config reaches the program through a
// pipe (fd 3) that a preload reads into node's own environment before the
// SDK does, so that no secret is in the process's initial environment.
type node struct {
	p       *pulumiproject.Project
	prog    pulumiproject.Program
	o       Options
	nodeBin string
	run     string // @pulumi/pulumi/cmd/run
}

func newNode(p *pulumiproject.Project, prog pulumiproject.Program, o Options) (*node, error) {
	bin, ok := lookPath("node", o)
	if !ok {
		return nil, &MissingError{Project: p.Name, Runtime: "nodejs", What: "node is not on PATH",
			Fix: "install Node.js 20 or newer (on Debian: apt-get install nodejs npm)"}
	}
	run, ok := findRunScript(prog.Pwd)
	if !ok {
		return nil, &MissingError{Project: p.Name, Runtime: "nodejs",
			What: fmt.Sprintf("@pulumi/pulumi is not installed in %s (no node_modules/@pulumi/pulumi there or above)", prog.Pwd),
			Fix:  fmt.Sprintf("run `npm install` in %s", prog.Pwd)}
	}
	return &node{p: p, prog: prog, o: o, nodeBin: bin, run: run}, nil
}

// lookPath finds an executable on the PATH of o's environment.
func lookPath(name string, o Options) (string, bool) {
	for _, dir := range filepath.SplitList(o.getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// findRunScript resolves @pulumi/pulumi/cmd/run from dir as node's
// require does: node_modules of dir and of each folder above it.
func findRunScript(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		run := filepath.Join(d, "node_modules", "@pulumi", "pulumi", "cmd", "run")
		if _, err := os.Stat(filepath.Join(run, "index.js")); err == nil {
			return run, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// preload reads the config from fd 3 into process.env before the SDK's
// store reads it, and keeps colour out of util.inspect of an error: the
// SDK formats a program's uncaught error with util.inspect(err, {colors:
// true}), and Node (20.x, and later lines before nodejs/node#64011 was
// fixed) loops, growing a string until it fails after minutes, on a
// stack frame such as ".../node_modules/@pulumi/resource.ts:1:2" (a
// scoped package's name with no folder after it), which @pulumi/pulumi's
// source maps produce for a plain JavaScript program.
const preload = `import {readFileSync, closeSync} from "node:fs";
import util from "node:util";
const c = JSON.parse(readFileSync(3, "utf8")); closeSync(3);
process.env.PULUMI_CONFIG = JSON.stringify(c.config);
process.env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(c.secretKeys);
const inspect = util.inspect;
const isError = (v) => v instanceof Error || util.types.isNativeError(v);
util.inspect = Object.setPrototypeOf(function inspectWithoutColouredErrors(value, options) {
  if (options !== null && typeof options === "object" && options.colors && isError(value)) {
    return inspect.call(this, value, {...options, colors: false});
  }
  return inspect.apply(this, arguments);
}, inspect);`

func (n *node) args(req source.RunRequest) []string {
	var args []string
	if s, ok := n.p.Options["nodeargs"].(string); ok && s != "" {
		args = append(args, strings.Fields(s)...)
	}
	args = append(args, "--import", "data:text/javascript,"+url.PathEscape(preload), n.run,
		"--monitor", req.MonitorAddress, "--engine", req.EngineAddress,
		"--organization", req.Organization, "--project", req.Project, "--root-directory", n.p.Dir,
		"--stack", req.Stack, "--pwd", n.prog.Pwd)
	if req.DryRun {
		args = append(args, "--dry-run")
	}
	args = append(args, "--parallel", strconv.Itoa(int(max(req.Parallel, 1))), n.prog.EntryPoint)
	return args
}

func (n *node) env() []string {
	env := append([]string{}, n.o.environ()...)
	ts := true
	if v, ok := n.p.Options["typescript"].(bool); ok {
		ts = v
	}
	env = append(env, "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(ts))
	if v, ok := n.p.Options["tsconfig"].(string); ok && v != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+v)
	}
	return withoutConfigEnv(env)
}

// withoutConfigEnv drops config variables inherited from runner's own
// environment: the program's config comes from the run only.
func withoutConfigEnv(env []string) []string {
	out := env[:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "PULUMI_CONFIG=") || strings.HasPrefix(kv, "PULUMI_CONFIG_SECRET_KEYS=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Run runs the program once.
func (n *node) Run(ctx context.Context, req source.RunRequest) error {
	cfg, err := json.Marshal(map[string]any{"config": nsConfig(req.Config), "secretKeys": orEmpty(req.ConfigSecretKeys)})
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(n.nodeBin, n.args(req)...)
	cmd.Dir, cmd.Env, cmd.ExtraFiles = n.prog.Pwd, n.env(), []*os.File{r}
	go func() {
		_, _ = w.Write(cfg)
		w.Close()
	}()
	err = runTied(ctx, cmd, req, r)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 32 {
		return &ProgramError{Reported: true} // the SDK logged the error itself
	}
	return err
}

// nsConfig rewrites "ns:key" as "ns:config:key", as Pulumi's nodejs host
// does.
func nsConfig(c map[string]string) map[string]string {
	out := make(map[string]string, len(c))
	for k, v := range c {
		if ns, key, ok := strings.Cut(k, ":"); ok && !strings.HasPrefix(key, "config:") {
			k = ns + ":config:" + key
		}
		out[k] = v
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
