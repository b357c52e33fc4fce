package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/runnerhq/runner/engine/pluginhost"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/projects/pulumiproject"
)

// golang runs a Go program as Pulumi's go host does: built (go build)
// into a cache folder keyed by the project folder, then run with the run's
// settings in its environment; runtime.options.binary names a binary
// built beforehand instead. The Go SDK reads its config only from
// PULUMI_CONFIG, so the program's config, secrets included, is in its own
// environment (README, Runtimes).
type golang struct {
	p      *pulumiproject.Project
	prog   pulumiproject.Program
	o      Options
	binary string // runtime.options.binary, absolute ("": build)
	goBin  string
}

func newGo(p *pulumiproject.Project, prog pulumiproject.Program, o Options) (*golang, error) {
	g := &golang{p: p, prog: prog, o: o}
	if b, ok := p.Options["binary"].(string); ok && b != "" {
		if !filepath.IsAbs(b) {
			b = filepath.Join(p.Dir, b)
		}
		if !isExecutable(b) {
			return nil, &MissingError{Project: p.Name, Runtime: "go", What: fmt.Sprintf("runtime.options.binary %s is not an executable file", b),
				Fix: "build it (go build -o " + b + ") or remove the option so that runner builds the program"}
		}
		g.binary = b
		return g, nil
	}
	bin, ok := lookPath("go", o)
	if !ok {
		return nil, &MissingError{Project: p.Name, Runtime: "go", What: "the go command is not on PATH",
			Fix: "install Go (go.dev/dl), or build the program yourself and name it in runtime.options.binary"}
	}
	g.goBin = bin
	return g, nil
}

// build compiles the program into the cache and returns the binary. A
// binary built from the same sources (every file of the program's module,
// by path, size and time, and the go command) is used again.
func (g *golang) build(ctx context.Context, req source.RunRequest) (string, error) {
	sum := sha256.Sum256([]byte(g.prog.Pwd))
	dir := filepath.Join(g.o.CacheDir, "go", g.p.Name+"-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("making the build cache %s: %w", dir, err)
	}
	out := filepath.Join(dir, g.p.Name)
	stamp, stampErr := g.fingerprint()
	if stampErr == nil && isExecutable(out) {
		if old, err := os.ReadFile(out + ".sources"); err == nil && string(old) == stamp {
			return out, nil
		}
	}
	tmp := out + ".tmp" + strconv.Itoa(os.Getpid())
	cmd := exec.Command(g.goBin, "build", "-o", tmp, ".")
	cmd.Dir, cmd.Env = g.prog.Pwd, g.o.environ()
	if err := runTied(ctx, cmd, source.RunRequest{Stdout: req.Stderr, Stderr: req.Stderr}); err != nil {
		os.Remove(tmp)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("building the Go program in %s failed (the compiler's output is in the log above): %w", g.prog.Pwd, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", err
	}
	if stampErr == nil {
		_ = os.WriteFile(out+".sources", []byte(stamp), 0o644) // without it, the next run builds again
	}
	return out, nil
}

// fingerprint sums what the build depends on: the go command, and the
// path, size and modification time of every file of the program's module
// (from the folder of its go.mod; folders starting with "." and
// node_modules skipped).
func (g *golang) fingerprint() (string, error) {
	root := g.prog.Pwd
	for d := root; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	h := sha256.New()
	fmt.Fprintln(h, g.goBin, g.prog.Pwd)
	if st, err := os.Stat(g.goBin); err == nil {
		fmt.Fprintln(h, st.Size(), st.ModTime().UnixNano())
	}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintln(h, p, st.Size(), st.ModTime().UnixNano())
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// UnknownsAbsent is true: Pulumi's Go SDK reads a stack reference output
// absent in a preview as unknown, and an unknown one as absent
// (source.UnknownsAbsent).
func (g *golang) UnknownsAbsent() bool { return true }

// Run builds (unless a binary is named) and runs the program once.
func (g *golang) Run(ctx context.Context, req source.RunRequest) error {
	bin := g.binary
	if bin == "" {
		var err error
		if bin, err = g.build(ctx, req); err != nil {
			return err
		}
	}
	cfg, err := json.Marshal(req.Config)
	if err != nil {
		return err
	}
	secretKeys, err := json.Marshal(orEmpty(req.ConfigSecretKeys))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin)
	cmd.Dir = g.prog.Pwd
	cmd.Env = append(withoutConfigEnv(append([]string{}, g.o.environ()...)),
		"PULUMI_MONITOR="+req.MonitorAddress, "PULUMI_ENGINE="+req.EngineAddress,
		"PULUMI_PROJECT="+req.Project, "PULUMI_STACK="+req.Stack, "PULUMI_ORGANIZATION="+req.Organization,
		"PULUMI_ROOT_DIRECTORY="+g.p.Dir, "PULUMI_DRY_RUN="+strconv.FormatBool(req.DryRun),
		"PULUMI_PARALLEL="+strconv.Itoa(int(max(req.Parallel, 1))),
		"PULUMI_CONFIG="+string(cfg), "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys))
	return runTied(ctx, cmd, req)
}

// runTied runs cmd tied to runner's life, its output masked into req's
// writers; close are files to close once it started (the child's ends of
// pipes). ctx ends it: SIGINT to its group, then SIGKILL 5 s later.
func runTied(ctx context.Context, cmd *exec.Cmd, req source.RunRequest, close ...*os.File) error {
	m := newMasker(req.Config, req.ConfigSecretKeys)
	out, errw := m.writer(orDiscard(req.Stdout)), m.writer(orDiscard(req.Stderr))
	cmd.Stdout, cmd.Stderr = out, errw
	name := filepath.Base(cmd.Path) // StartTied puts its keeper in front
	t, err := pluginhost.StartTied(cmd)
	for _, f := range close {
		f.Close()
	}
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	select {
	case <-t.Exited():
	case <-ctx.Done():
		t.Stop(5 * time.Second)
	}
	err = t.Wait()
	out.Flush()
	errw.Flush()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &exitedError{name: name, exit: exit}
	}
	return err
}

// exitedError is a program's exit with an error, named by the program's
// executable (not the keeper in front of it).
type exitedError struct {
	name string
	exit *exec.ExitError
}

// Error says how the program ended. Under the keeper a program killed by a
// signal exits 128 plus the signal's number, as in a shell.
func (e *exitedError) Error() string {
	status := fmt.Sprintf("exited with status %d", e.exit.ExitCode())
	if ws, ok := e.exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		status = fmt.Sprintf("was killed by signal %q", ws.Signal())
	} else if code := e.exit.ExitCode(); code > 128 && code <= 128+64 {
		status += fmt.Sprintf(" (killed by signal %q)", syscall.Signal(code-128))
	}
	return e.name + " " + status + " (its output is in the log above)"
}

func (e *exitedError) Unwrap() error { return e.exit }
