package plugins

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pluginProcs returns the running (not zombie) processes whose environment
// holds this test's store path: its plugins (PULUMI_CONFIG carries the
// store) and nothing of another test.
func (e *env) pluginProcs() []int {
	e.t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		environ, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(environ, []byte("PULUMI_CONFIG=")) || !bytes.Contains(environ, []byte(string(e.store))) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil {
			s := string(stat)
			if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && s[i+2] == 'Z' {
				continue // a zombie: dead, waiting for its parent
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// noPlugins fails unless every plugin process of the test is gone within 5 s.
func (e *env) noPlugins(what string) {
	e.t.Helper()
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if pids = e.pluginProcs(); len(pids) == 0 {
			return
		}
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	e.t.Fatalf("%s: plugin processes left behind: %v", what, pids)
}

// bg is runner running in the background, its stdout watched line by line.
type bg struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	errb bytes.Buffer
	seen chan string // stdout lines
	done chan struct{}
}

// start runs runner in the background with --provider testprov.
func (e *env) start(args ...string) *bg {
	e.t.Helper()
	cmd := exec.Command(binary, append([]string{"--root", e.dir, "--provider", "testprov"}, args...)...)
	cmd.Dir, cmd.Env = e.dir, e.environ()
	b := &bg{cmd: cmd, seen: make(chan string, 1000), done: make(chan struct{})}
	cmd.Stderr = &b.errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			b.mu.Lock()
			b.out.WriteString(sc.Text() + "\n")
			b.mu.Unlock()
			select {
			case b.seen <- sc.Text():
			default:
			}
		}
		close(b.seen)
	}()
	e.t.Cleanup(func() { _ = cmd.Process.Kill(); <-b.done })
	go func() { _ = cmd.Wait(); close(b.done) }()
	return b
}

// waitFor waits up to 20 s for a stdout line containing all of parts.
func (b *bg) waitFor(t *testing.T, parts ...string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-b.seen:
			if !ok {
				t.Fatalf("runner ended before printing %q: %s", parts, b.result())
			}
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return
			}
		case <-timeout:
			t.Fatalf("runner did not print %q within 20 s: %s", parts, b.result())
		}
	}
}

// wait waits up to d for runner to exit and returns how long it took.
func (b *bg) wait(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-b.done:
	case <-time.After(d):
		t.Fatalf("runner did not exit within %s: %s", d, b.result())
	}
	return time.Since(start)
}

func (b *bg) result() result {
	b.mu.Lock()
	defer b.mu.Unlock()
	code := -1
	if b.cmd.ProcessState != nil {
		code = b.cmd.ProcessState.ExitCode()
	}
	return result{Stdout: b.out.String(), Stderr: b.errb.String(), Code: code}
}
