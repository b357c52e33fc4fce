package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// defaultInterpreter runs a command line when the inputs name no interpreter.
var defaultInterpreter = []string{"/bin/sh", "-c"}

// stderrLines is how many trailing lines of stderr a failure shows.
const stderrLines = 10

// result is what a command printed.
type result struct{ stdout, stderr string }

// run runs the command named by which ("create", "update" or "delete") from
// inputs; a missing or empty command runs nothing. prev holds the previous
// outputs, exposed as PULUMI_COMMAND_STDOUT and PULUMI_COMMAND_STDERR.
func (p Plugin) run(ctx context.Context, which string, in, prev resource.PropertyMap) (result, error) {
	line, err := in.String(which, "")
	if err != nil || line == "" {
		return result{}, err
	}
	cmd, err := build(ctx, p.environ(), line, in, prev)
	if err != nil {
		return result{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := result{
		stdout: strings.TrimSuffix(stdout.String(), "\n"),
		stderr: strings.TrimSuffix(stderr.String(), "\n"),
	}
	if err == nil {
		return res, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return result{}, fmt.Errorf("the %s command was stopped: %w", which, ctxErr)
	}
	secret := resource.ContainsSecret(in) || resource.ContainsSecret(prev)
	return result{}, failure(which, err, res.stderr, secret)
}

// environ is the environment commands start with.
func (p Plugin) environ() []string {
	if p.Environ == nil {
		return os.Environ()
	}
	return p.Environ
}

// build prepares the process: interpreter, folder, environment (parent,
// then the declared variables), stdin and its own process group, killed
// whole when ctx is cancelled.
func build(ctx context.Context, parent []string, line string, in, prev resource.PropertyMap) (*exec.Cmd, error) {
	interp, err := in.StringList("interpreter")
	if err != nil {
		return nil, err
	}
	if len(interp) == 0 {
		interp = defaultInterpreter
	}
	env, err := in.StringMap("environment")
	if err != nil {
		return nil, err
	}
	dir, err := in.String("dir", "")
	if err != nil {
		return nil, err
	}
	stdin, err := in.String("stdin", "")
	if err != nil {
		return nil, err
	}
	args := append(append([]string{}, interp[1:]...), line)
	cmd := exec.CommandContext(ctx, interp[0], args...)
	cmd.Dir = dir
	cmd.Env = append([]string(nil), parent...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if prev != nil {
		for key, name := range map[string]string{"stdout": "PULUMI_COMMAND_STDOUT", "stderr": "PULUMI_COMMAND_STDERR"} {
			v, _ := resource.Unsecret(prev[key])
			if s, ok := v.(string); ok {
				cmd.Env = append(cmd.Env, name+"="+s)
			}
		}
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// failure explains a failed command with its exit code and the end of its
// stderr, which is withheld when the inputs hold secrets.
func failure(which string, err error, stderr string, secret bool) error {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("starting the %s command: %w", which, err)
	}
	msg := fmt.Sprintf("the %s command failed with exit code %d", which, exit.ExitCode())
	switch {
	case secret:
		msg += " (its output is withheld because the inputs hold secrets)"
	case strings.TrimSpace(stderr) != "":
		lines := strings.Split(stderr, "\n")
		if len(lines) > stderrLines {
			lines = lines[len(lines)-stderrLines:]
		}
		msg += "; the end of its stderr:\n" + strings.Join(lines, "\n")
	}
	return errors.New(msg)
}
