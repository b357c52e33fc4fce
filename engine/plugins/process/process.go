// Package process is the resource plugin for long-running local processes:
// process:index:Process starts a detached process (its own session, so it
// outlives runner), refresh notices when it has died, and delete stops it.
// It is what runs the local environment's HTTPS service.
package process

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// Type is the type token of a process. The plugin also serves PortType.
const Type = "process:index:Process"

// Plugin manages process:index:Process resources. Inputs: command (list,
// required: the program and its arguments), environment (object of
// strings: the process's variables besides the few it inherits from
// runner, see Environment), dir, logFile (stdout and stderr are appended
// there; default discarded), pidFile (written at start, used to find the
// process again after a crash), readyTcp (host:port that must be free
// before the start and then listened on by the started process itself
// before the create succeeds), readyTimeoutSeconds (default 15). Outputs: the inputs plus pid and startTicks (the process's
// start time in clock ticks since boot, which tells a live process from a
// reused pid). Every input change replaces the process, stopping the old one
// first (the new one usually needs the same port).
type Plugin struct {
	// Environ is the environment (KEY=VALUE) whose inherited variables a
	// process keeps (see Environment); nil means runner's own.
	Environ []string
}

var _ resource.Plugin = Plugin{}

// Package returns "process".
func (Plugin) Package() string { return "process" }

// Check validates the inputs.
func (Plugin) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	switch req.Type {
	case Type:
	case PortType:
		return checkPort(req.News)
	default:
		return nil, fmt.Errorf("the process plugin has no resource type %q; it has %s and %s", req.Type, Type, PortType)
	}
	news := req.News
	if c, ok := news["command"]; !ok || c == nil {
		return nil, errors.New(`property "command" is required: the program to run and its arguments`)
	}
	if !resource.ContainsComputed(news["command"]) {
		cmd, err := news.StringList("command")
		if err != nil {
			return nil, err
		}
		if len(cmd) == 0 {
			return nil, errors.New(`property "command" must name at least the program to run`)
		}
	}
	for _, k := range []string{"dir", "logFile", "pidFile", "readyTcp"} {
		if resource.ContainsComputed(news[k]) {
			continue
		}
		if _, err := news.String(k, ""); err != nil {
			return nil, err
		}
	}
	if !resource.ContainsComputed(news["environment"]) {
		if _, err := news.StringMap("environment"); err != nil {
			return nil, err
		}
	}
	return news, nil
}

// Diff reports every changed input as a replacement, old process first.
func (Plugin) Diff(_ context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	changed := resource.DiffKeys(req.OldInputs, req.NewInputs, req.IgnoreChanges)
	return resource.DiffResponse{Changed: changed, Replaces: changed, DeleteBeforeReplace: len(changed) > 0}, nil
}

// Create starts the process and waits until it is ready.
func (p Plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if req.Type == PortType {
		return createPort(req.Inputs, req.Preview)
	}
	outs := req.Inputs.Copy(2)
	if req.Preview {
		outs["pid"] = resource.Computed{}
		outs["startTicks"] = resource.Computed{}
		return resource.CreateResponse{Outputs: outs}, nil
	}
	pid, ticks, err := start(ctx, p.environ(), req.Inputs, marker(req.URN, req.Inputs))
	if err != nil {
		return resource.CreateResponse{}, err
	}
	outs["pid"] = float64(pid)
	outs["startTicks"] = float64(ticks)
	return resource.CreateResponse{ID: strconv.Itoa(pid), Outputs: outs}, nil
}

// Read reports whether the recorded process still runs. With no ID (a
// create interrupted by a crash) it looks for the pid file, then for the
// process holding the resource's marker in its environment (markerVar).
func (Plugin) Read(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	outs := req.Outputs
	if req.Type == PortType {
		// A port is a choice recorded in state; there is nothing to read back.
		return resource.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: outs}, nil
	}
	if req.ID == "" {
		pidFile, _ := req.Inputs.String("pidFile", "")
		pid, ticks, ok := fromPidFile(pidFile)
		if !ok {
			// Killed after the start, before the pid file was written.
			pid, ticks, ok = findMarked(marker(req.URN, req.Inputs))
		}
		if !ok {
			return resource.ReadResponse{}, nil
		}
		outs = req.Inputs.Copy(2)
		outs["pid"] = float64(pid)
		outs["startTicks"] = float64(ticks)
		return resource.ReadResponse{ID: strconv.Itoa(pid), Inputs: req.Inputs, Outputs: outs}, nil
	}
	pid, err := strconv.Atoi(req.ID)
	if err != nil {
		return resource.ReadResponse{}, fmt.Errorf("the process ID %q is not a pid", req.ID)
	}
	want, _ := outs.Int("startTicks", 0)
	if !alive(pid, uint64(want)) {
		return resource.ReadResponse{}, nil
	}
	return resource.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: outs}, nil
}

// Update is never called: every change replaces.
func (Plugin) Update(context.Context, resource.UpdateRequest) (resource.UpdateResponse, error) {
	return resource.UpdateResponse{}, errPortUpdate
}

// Delete stops the process (SIGTERM to its session, then SIGKILL after 5 s)
// and removes its pid file and log file.
func (Plugin) Delete(ctx context.Context, req resource.DeleteRequest) error {
	if req.Type == PortType {
		return nil
	}
	pid, err := strconv.Atoi(req.ID)
	if err != nil {
		return fmt.Errorf("the process ID %q is not a pid", req.ID)
	}
	ticks, _ := req.Outputs.Int("startTicks", 0)
	if err := stop(ctx, pid, uint64(ticks)); err != nil {
		return err
	}
	for _, key := range []string{"pidFile", "logFile"} {
		path, _ := req.Inputs.String(key, "")
		if path == "" {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing the process's %s %s: %w", key, path, err)
		}
	}
	return nil
}

// start launches the process in its own session, mark in its environment,
// and waits for readiness.
func start(ctx context.Context, parent []string, in resource.PropertyMap, mark string) (int, uint64, error) {
	argv, _ := in.StringList("command")
	env, _ := in.StringMap("environment")
	dir, _ := in.String("dir", "")
	logFile, _ := in.String("logFile", "")
	pidFile, _ := in.String("pidFile", "")
	ready, _ := in.String("readyTcp", "")
	timeout, err := in.Int("readyTimeoutSeconds", 15)
	if err != nil {
		return 0, 0, err
	}

	if ready != "" {
		if err := portFree(ready); err != nil {
			return 0, 0, fmt.Errorf("cannot start %s: %w", argv[0], err)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(Environment(parent, env), markerVar+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := openLog(logFile)
	if err != nil {
		return 0, 0, err
	}
	if out != nil {
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reap it if it dies while runner lives
	ticks, _ := startTicks(pid)
	if pidFile != "" {
		if err := writePidFile(pidFile, pid); err != nil {
			_ = stop(context.Background(), pid, ticks)
			return 0, 0, err
		}
	}
	if ready != "" {
		if err := waitReady(ctx, ready, pid, time.Duration(timeout)*time.Second, exited); err != nil {
			_ = stop(context.Background(), pid, ticks)
			if pidFile != "" {
				_ = os.Remove(pidFile)
			}
			hint := ""
			if logFile != "" {
				hint = "; its log is " + logFile
			}
			return 0, 0, fmt.Errorf("%s did not become ready on %s: %w%s", argv[0], ready, err, hint)
		}
	}
	return pid, ticks, nil
}

func openLog(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the folder of the log file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the log file: %w", err)
	}
	return f, nil
}

// waitReady waits until the process pid (or one of its session) listens
// on addr, the process exits, or time runs out. Any listener will not do:
// another program holding the port would answer in its place. Where the
// system has no socket table to tell who listens, a connection accepted
// on addr while the process runs is taken as ready.
func waitReady(ctx context.Context, addr string, pid int, timeout time.Duration, exited <-chan error) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := listening(addr, pid)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not listen there within %s%s", timeout, heldBy(addr))
		}
		select {
		case err := <-exited:
			if err == nil {
				return fmt.Errorf("the process exited%s", heldBy(addr))
			}
			return fmt.Errorf("the process exited (%w)%s", err, heldBy(addr))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// listening reports whether addr is listened on by pid's process (or one
// of its session) and by nothing else.
func listening(addr string, pid int) (bool, error) {
	ls, err := listenersOn(addr)
	if errors.Is(err, errNoSocketTable) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return false, nil
		}
		c.Close()
		return alive(pid, 0), nil
	}
	if err != nil {
		return false, err
	}
	return len(ls) > 0 && ownedBy(ls, pid), nil
}

// portFree fails when something already listens on addr, naming it.
func portFree(addr string) error {
	ls, err := listenersOn(addr)
	if errors.Is(err, errNoSocketTable) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return nil
		}
		c.Close()
		return fmt.Errorf("%s is already in use by another process; stop it or choose another port", describePort(addr))
	}
	if err != nil {
		return err
	}
	if len(ls) == 0 {
		return nil
	}
	return fmt.Errorf("%s is already in use by %s; stop it or choose another port", describePort(addr), describeHolders(ls))
}

// heldBy says who holds addr, for an error, when anything does.
func heldBy(addr string) string {
	ls, err := listenersOn(addr)
	if err != nil || len(ls) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s is in use by %s", describePort(addr), describeHolders(ls))
}

// describePort spells addr as "port 8080 on 127.0.0.1".
func describePort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return fmt.Sprintf("port %s on %s", port, host)
}

// stop ends the process's session if pid is still the process we started.
func stop(ctx context.Context, pid int, ticks uint64) error {
	if !alive(pid, ticks) {
		return nil
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid, ticks) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopping process %d: %w", pid, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	for i := 0; i < 100 && alive(pid, ticks); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid, ticks) {
		return fmt.Errorf("process %d did not stop after SIGKILL", pid)
	}
	return nil
}
