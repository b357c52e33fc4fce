package pulumiprojects

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// background is a runner command started in a workspace, its output kept.
type background struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan error
}

// start starts runner in the workspace with args (after --root).
func (w *ws) start(args ...string) *background {
	w.t.Helper()
	b := &background{cmd: exec.Command(binary, append([]string{"--root", w.dir}, args...)...), out: &bytes.Buffer{}, done: make(chan error, 1)}
	b.cmd.Dir, b.cmd.Env = w.dir, w.environ()
	b.cmd.Stdout, b.cmd.Stderr = b.out, b.out
	if err := b.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	return b
}

// kill kills the command and waits for it.
func (b *background) kill() {
	b.cmd.Process.Kill()
	<-b.done
}

// interrupt sends Ctrl-C and fails the test unless the command ends with
// exit 130 within 20 seconds; during says what it was doing.
func (b *background) interrupt(t *testing.T, during string) {
	t.Helper()
	start := time.Now()
	b.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-b.done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("up interrupted during %s: %v, want exit 130\n%s", during, err, b.out.String())
		}
	case <-time.After(20 * time.Second):
		b.kill()
		t.Fatalf("up still runs %s after Ctrl-C:\n%s", time.Since(start), b.out.String())
	}
}
