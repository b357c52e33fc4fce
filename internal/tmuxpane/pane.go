// Package tmuxpane runs a command in a real terminal for end-to-end tests:
// a detached tmux session of its own server, driven by send-keys and read
// by capture-pane.
package tmuxpane

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Pane is one command running in a 200x50 tmux pane that stays open after
// the command exits, to be read.
type Pane struct {
	t        testing.TB
	socket   string
	exitFile string
	// Wait bounds each wait for the screen (a prompt, the exit); 20 s
	// unless set.
	Wait time.Duration
}

// Quote quotes s for sh.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Start runs argv in dir in a new pane; env is the tmux server's
// environment, which the command inherits (TERM=xterm-256color is added).
func Start(t testing.TB, dir string, env, argv []string) *Pane {
	t.Helper()
	tmp := t.TempDir()
	p := &Pane{t: t, socket: filepath.Join(tmp, "tmux.sock"), exitFile: filepath.Join(tmp, "exit"), Wait: 20 * time.Second}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = Quote(a)
	}
	exit := Quote(p.exitFile)
	script := filepath.Join(tmp, "run.sh")
	body := "cd " + Quote(dir) + "\n" + strings.Join(quoted, " ") + "\necho $? > " + exit + ".tmp && mv " + exit + ".tmp " + exit + "\nsleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tmux := exec.Command("tmux", "-S", p.socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "sh "+script)
	tmux.Env = append(env, "TERM=xterm-256color")
	if out, err := tmux.CombinedOutput(); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

// Screen returns what the pane shows, with its scrollback.
func (p *Pane) Screen() string {
	out, err := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-S", "-3000").Output()
	if err != nil {
		p.t.Fatalf("reading the tmux pane: %v", err)
	}
	return string(out)
}

// WaitFor waits until the pane shows text n times (n counts re-asked
// prompts), failing with the screen after p.Wait.
func (p *Pane) WaitFor(text string, n int) {
	p.t.Helper()
	deadline := time.Now().Add(p.Wait)
	for {
		s := p.Screen()
		if strings.Count(s, text) >= n {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal did not show %q (%d times) within %s:\n%s", text, n, p.Wait, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Answer waits for prompt, types value and presses Enter.
func (p *Pane) Answer(prompt, value string) {
	p.t.Helper()
	p.WaitFor(prompt, 1)
	p.Reply(prompt, value)
}

// Reply types value at the last showing of prompt and presses Enter.
// Survey reads the cursor position from the terminal when a prompt starts
// and drops keys that arrive in the same read as the terminal's reply, and
// a loaded machine echoes late: so Reply checks that exactly value arrived
// (its echo, or one * each for a password), erasing and typing it again
// if not.
func (p *Pane) Reply(prompt, value string) {
	p.t.Helper()
	for attempt := 1; value != ""; attempt++ {
		time.Sleep(time.Duration(attempt) * 150 * time.Millisecond)
		p.Keys("-l", value)
		if p.LineEnds(prompt, value) {
			break
		}
		if attempt == 5 {
			p.t.Fatalf("typing %q at %q did not reach runner:\n%s", value, prompt, p.Screen())
		}
		for i := 0; i < len(value)+8; i++ {
			p.Keys("BSpace")
		}
	}
	if value == "" {
		time.Sleep(150 * time.Millisecond)
	}
	// Enter changes the screen (the answer is shown, or the reply is
	// refused); press it again if it was lost.
	for attempt := 1; ; attempt++ {
		before := p.Screen()
		p.Keys("Enter")
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) && p.Screen() == before {
			time.Sleep(30 * time.Millisecond)
		}
		if p.Screen() != before || attempt == 3 {
			return
		}
	}
}

// LineEnds waits up to two seconds for the last line showing prompt to end
// with exactly value (after a blank) or with its mask.
func (p *Pane) LineEnds(prompt, value string) bool {
	mask := strings.Repeat("*", len(value))
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		l := LastLine(p.Screen(), prompt)
		if strings.HasSuffix(l, " "+value) || strings.HasSuffix(l, " "+mask) {
			return true
		}
		time.Sleep(30 * time.Millisecond)
	}
	return false
}

// Keys sends tmux send-keys arguments.
func (p *Pane) Keys(args ...string) {
	p.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", p.socket, "send-keys"}, args...)...).CombinedOutput(); err != nil {
		p.t.Fatalf("typing into tmux: %v %s", err, out)
	}
}

// Invalid waits for the n-th "reply was invalid" and the prompt asked
// again, and for because when it is not empty.
func (p *Pane) Invalid(n int, because string) {
	p.t.Helper()
	p.WaitFor("Sorry, your reply was invalid", n)
	if because != "" {
		p.WaitFor(because, 1)
	}
}

// Exit waits (p.Wait) for the command to end and returns its exit code
// and the screen.
func (p *Pane) Exit() (int, string) {
	p.t.Helper()
	deadline := time.Now().Add(p.Wait)
	for {
		b, err := os.ReadFile(p.exitFile)
		if err == nil {
			code, convErr := strconv.Atoi(strings.TrimSpace(string(b)))
			if convErr != nil {
				p.t.Fatalf("the exit file holds %q", b)
			}
			return code, p.Screen()
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the command did not end within %s:\n%s", p.Wait, p.Screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// LastLine is the last line of screen that holds text, without its
// trailing blanks.
func LastLine(screen, text string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], text) {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}
