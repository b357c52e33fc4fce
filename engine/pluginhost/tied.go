package pluginhost

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Tied is a process started as plugins are (StartTied): in its own
// process group, and killed by the kernel when runner dies, so that a
// language host, a program or a build never outlives the run.
type Tied struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error

	mu     sync.Mutex
	reaped bool
}

// StartTied starts cmd in its own process group with Pdeathsig set (its
// SysProcAttr is replaced), through the group keeper when UseKeeper named
// one, so that the whole group dies with runner. Wait returns its exit;
// Stop ends its group.
func StartTied(cmd *exec.Cmd) (*Tied, error) {
	keep(cmd)
	cmd.SysProcAttr = sysProcAttr()
	if keeper != "" {
		keeperDeathSignal(cmd.SysProcAttr) // the keeper then kills the group
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = drainWait // a child holding its output open
	}
	t := &Tied{cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// The kernel sends Pdeathsig when the creating thread exits: it
		// must live as long as the process (go.dev/issue/27505).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		blockUntilExited(cmd.Process.Pid)
		t.mu.Lock()
		t.reaped = true
		t.mu.Unlock()
		t.err = cmd.Wait()
		close(t.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return t, nil
}

// Pid is the process's ID (and its group's).
func (t *Tied) Pid() int { return t.cmd.Process.Pid }

// Exited is closed once the process has exited and been waited for.
func (t *Tied) Exited() <-chan struct{} { return t.exited }

// Wait waits for the process and returns how it ended (exec.Cmd.Wait).
func (t *Tied) Wait() error {
	<-t.exited
	return t.err
}

// Stop asks the process group to stop (SIGINT), kills it after grace, and
// waits for the process.
func (t *Tied) Stop(grace time.Duration) {
	t.signal(syscall.SIGINT)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-t.exited:
	case <-timer.C:
	}
	t.signal(syscall.SIGKILL) // the group may hold the process's own children
	<-t.exited
}

// signal sends sig to the group unless the process was reaped (its ID
// could then name another group).
func (t *Tied) signal(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.reaped {
		// The leader is gone; its group may remain, but its ID is free again.
		return
	}
	if err := syscall.Kill(-t.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return
	}
}
