package pluginhost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Timeouts of a plugin's life; variables so that tests can shorten them.
var (
	portTimeout = 60 * time.Second // for the port line on stdout
	killGrace   = 5 * time.Second  // between SIGINT and SIGKILL
	drainWait   = time.Second      // for a plugin's output after its exit
)

// process is one running plugin executable: its output drained into a ring
// of recent lines, and its exit recorded.
type process struct {
	pkg, path string
	pid       int
	debug     func(string)
	lines     *ring
	draining  atomic.Int32  // output streams not drained yet
	drained   chan struct{} // closed when both output streams are drained
	exited    chan struct{} // closed once the process has been waited for
	state     *os.ProcessState
	mask      func(string) string // masks secrets in the lines errors quote; nil: none

	sigMu  sync.Mutex
	reaped bool // about to be waited for: no signal to its group from then on
}

// launch describes how to start one plugin.
type launch struct {
	pkg, path, dir string
	env            []string
	engineAddr     string
	debug          func(string)
	mask           func(string) string // masks secrets in quoted output; nil: none
}

// startProcess starts the plugin and reads its port from the first line of
// its stdout. On any failure the process is ended and the error names the
// binary with its exit and its last output lines.
func startProcess(ctx context.Context, l launch) (*process, int, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, 0, err
	}
	cmd := exec.Command(l.path, l.engineAddr)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = l.dir, l.env, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	p := &process{pkg: l.pkg, path: l.path, debug: l.debug, lines: newRing(20), exited: make(chan struct{}),
		drained: make(chan struct{}), mask: l.mask}
	started := make(chan error, 1)
	go p.run(cmd, started)
	err = <-started
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, 0, fmt.Errorf("could not start the %s plugin (%s): %w", l.pkg, l.path, err)
	}
	p.pid = cmd.Process.Pid
	p.draining.Store(2)
	go p.drain(bufio.NewReader(errR), "stderr", errR)
	port, err := p.readPort(ctx, outR)
	if err != nil {
		p.stop(context.Background(), 0)
		return nil, 0, err
	}
	return p, port, nil
}

// run starts cmd and waits for it on one locked OS thread: the kernel sends
// Pdeathsig when the thread that created the child exits, so the thread
// must live as long as the plugin (go.dev/issue/27505).
func (p *process) run(cmd *exec.Cmd, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		started <- err
		return
	}
	started <- nil
	blockUntilExited(cmd.Process.Pid)
	p.sigMu.Lock()
	p.reaped = true // its ID may be reused once it is waited for
	p.sigMu.Unlock()
	_ = cmd.Wait() // the state says how it ended
	p.state = cmd.ProcessState
	close(p.exited)
}

// readPort reads the first stdout line as the plugin's port, then keeps
// draining stdout.
func (p *process) readPort(ctx context.Context, out *os.File) (int, error) {
	type result struct {
		line string
		err  error
	}
	br := bufio.NewReader(out)
	ch := make(chan result, 1)
	go func() {
		line, err := readLine(br)
		ch <- result{line, err}
		if err != nil {
			p.drainDone()
			out.Close()
			return
		}
		p.drain(br, "stdout", out)
	}()
	timer := time.NewTimer(portTimeout)
	defer timer.Stop()
	var r result
	select {
	case r = <-ch:
	case <-timer.C:
		return 0, p.failure(fmt.Sprintf("printed no port within %s", portTimeout))
	case <-ctx.Done():
		return 0, fmt.Errorf("starting the %s plugin (%s): %w", p.pkg, p.path, ctx.Err())
	}
	if r.err != nil {
		p.waitExit(2 * time.Second)
		return 0, p.failure("printed no port")
	}
	port, err := strconv.Atoi(strings.TrimSpace(r.line))
	if err != nil || port < 1 || port > 65535 {
		return 0, p.failure(fmt.Sprintf("printed %q where its port number was expected", truncate(r.line, 200)))
	}
	return port, nil
}

// failure returns the error of a plugin that failed to start.
func (p *process) failure(what string) error {
	return fmt.Errorf("the %s plugin (%s) %s; it %s%s", p.pkg, p.path, what, p.exitDescription(), p.tail())
}

// died returns the error of a call that failed because the plugin exited,
// or nil if it is still running (waiting up to wait for its exit).
func (p *process) died(op string, wait time.Duration) error {
	if !p.waitExit(wait) {
		return nil
	}
	return fmt.Errorf("the %s plugin (%s) %s during %s%s", p.pkg, p.path, p.exitDescription(), op, p.tail())
}

// waitExit waits up to d for the process to exit and its output to be
// drained; it reports whether it has exited.
func (p *process) waitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exited: // checked first: with d == 0 both cases may be ready
	default:
		select {
		case <-p.exited:
		case <-timer.C:
			return false
		}
	}
	drain := time.NewTimer(drainWait)
	defer drain.Stop()
	select {
	case <-p.drained:
	case <-drain.C: // a child of the plugin may hold its output open
	}
	return true
}

// drainDone records that one output stream is drained.
func (p *process) drainDone() {
	if p.draining.Add(-1) == 0 {
		close(p.drained)
	}
}

// exitDescription says how the process ended ("exited with status 2").
func (p *process) exitDescription() string {
	select {
	case <-p.exited:
	default:
		return "is still running"
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", p.state.ExitCode())
}

// tail returns the plugin's last output lines, formatted to end an error.
func (p *process) tail() string {
	lines := p.lines.lines()
	if len(lines) == 0 {
		return " (it printed nothing)"
	}
	out := strings.Join(lines, "\n")
	if p.mask != nil {
		out = p.mask(out)
	}
	return ":\n" + out
}

// drain reads the plugin's output lines into the ring and the debug log
// until EOF.
func (p *process) drain(br *bufio.Reader, stream string, c io.Closer) {
	defer p.drainDone()
	defer c.Close()
	for {
		line, err := readLine(br)
		if line != "" || err == nil {
			p.lines.add(line)
			if p.debug != nil {
				p.debug(fmt.Sprintf("plugin %s[%d] %s: %s", p.pkg, p.pid, stream, line))
			}
		}
		if err != nil {
			return
		}
	}
}

// stop ends the plugin: SIGINT to its process group, SIGKILL after grace
// (or when ctx is done), and waits for it.
func (p *process) stop(ctx context.Context, grace time.Duration) {
	p.signal(syscall.SIGINT)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
	case <-ctx.Done():
	}
	p.signal(syscall.SIGKILL) // the group may hold the plugin's own children
	<-p.exited
}

// signal sends sig to the plugin's process group, unless the plugin has
// been waited for (its ID could then name an unrelated group); it reports
// whether the signal was sent.
func (p *process) signal(sig syscall.Signal) bool {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if p.reaped {
		return false
	}
	err := syscall.Kill(-p.pid, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) && p.debug != nil {
		p.debug(fmt.Sprintf("plugin %s[%d]: %s to its group: %v", p.pkg, p.pid, sig, err))
	}
	return err == nil
}

// readLine reads one line without its end, keeping at most 4 KiB of it.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(b) < 4096 {
			b = append(b, chunk[:min(len(chunk), 4096-len(b))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line := strings.TrimRight(string(b), "\r\n")
		if err == io.EOF && len(b) > 0 {
			return line, nil
		}
		return line, err
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// ring keeps the last lines of a plugin's output.
type ring struct {
	mu  sync.Mutex
	buf []string
	max int
}

func newRing(max int) *ring { return &ring{max: max} }

func (r *ring) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) == r.max {
		r.buf = append(r.buf[:0], r.buf[1:]...)
	}
	r.buf = append(r.buf, line)
}

func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.buf...)
}
