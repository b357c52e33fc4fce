package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/testenv"
)

// promptWait bounds the wait for one prompt (a new stack's passphrase
// costs a key derivation of about a second).
const promptWait = 20 * time.Second

// pane is runner running in a detached tmux session of its own server: a
// real terminal, driven by send-keys and read by capture-pane.
type pane struct {
	t        *testing.T
	socket   string
	exitFile string
}

// inTmux starts runner with args in a 200x50 tmux pane, in workspace dir,
// with the environment of the e2e runs minus unset, plus set. The pane
// stays open after runner exits, to be read.
func inTmux(t *testing.T, dir string, unset, set []string, args ...string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Unavailable(t, "tmux is not installed: the prompt tests need a real terminal (.ci/run installs tmux; locally: apt-get install tmux)")
	}
	tmp := t.TempDir()
	p := &pane{t: t, socket: filepath.Join(tmp, "tmux.sock"), exitFile: filepath.Join(tmp, "exit")}
	cmd := []string{"env", "-u", "CI", "-u", "TMUX"}
	for _, k := range unset {
		cmd = append(cmd, "-u", k)
	}
	cmd = append(append(cmd, set...), binary, "--root", dir)
	cmd = append(cmd, args...)
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = shellQuote(a)
	}
	exit := shellQuote(p.exitFile)
	script := filepath.Join(tmp, "run.sh")
	body := "cd " + shellQuote(dir) + "\n" + strings.Join(quoted, " ") + "\necho $? > " + exit + ".tmp && mv " + exit + ".tmp " + exit + "\nsleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tmux := exec.Command("tmux", "-S", p.socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "sh "+script)
	tmux.Env = append(baseEnv(), "TERM=xterm-256color")
	if out, err := tmux.CombinedOutput(); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// screen returns what the pane shows, with its scrollback.
func (p *pane) screen() string {
	out, err := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-S", "-1000").Output()
	if err != nil {
		p.t.Fatalf("reading the tmux pane: %v", err)
	}
	return string(out)
}

// waitFor waits until the pane shows text n times (n counts re-asked
// prompts), failing with the screen after promptWait.
func (p *pane) waitFor(text string, n int) {
	p.t.Helper()
	deadline := time.Now().Add(promptWait)
	for {
		s := p.screen()
		if strings.Count(s, text) >= n {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal did not show %q (%d times) within %s:\n%s", text, n, promptWait, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answer waits for prompt, types value and presses Enter. Survey reads
// the cursor position from the terminal when a prompt starts and drops
// keys that arrive in the same read as the terminal's reply, so typing
// waits a moment after the prompt shows and checks that the keys arrived
// (their echo, or one * each for a password), typing them again if not.
func (p *pane) answer(prompt, value string) {
	p.t.Helper()
	p.waitFor(prompt, 1)
	p.reply(prompt, value)
}

// reply types value at the last showing of prompt and presses Enter.
func (p *pane) reply(prompt, value string) {
	p.t.Helper()
	for attempt := 1; value != ""; attempt++ {
		time.Sleep(time.Duration(attempt) * 150 * time.Millisecond)
		p.keys("-l", value)
		if p.lineEnds(prompt, value) {
			break
		}
		if attempt == 5 {
			p.t.Fatalf("typing %q at %q did not reach runner:\n%s", value, prompt, p.screen())
		}
		for i := 0; i < len(value)+8; i++ {
			p.keys("BSpace")
		}
	}
	if value == "" {
		time.Sleep(150 * time.Millisecond)
	}
	// Enter changes the screen (the answer is shown, or the reply is
	// refused); press it again if it was lost.
	for attempt := 1; ; attempt++ {
		before := p.screen()
		p.keys("Enter")
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) && p.screen() == before {
			time.Sleep(30 * time.Millisecond)
		}
		if p.screen() != before || attempt == 3 {
			return
		}
	}
}

// lineEnds waits up to a second for the last line showing prompt to end
// with value or with its mask.
func (p *pane) lineEnds(prompt, value string) bool {
	mask := strings.Repeat("*", len(value))
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		lines := strings.Split(p.screen(), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], prompt) {
				l := strings.TrimRight(lines[i], " ")
				if strings.HasSuffix(l, " "+value) || strings.HasSuffix(l, " "+mask) {
					return true
				}
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
	}
	return false
}

// keys sends tmux send-keys arguments.
func (p *pane) keys(args ...string) {
	p.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", p.socket, "send-keys"}, args...)...).CombinedOutput(); err != nil {
		p.t.Fatalf("typing into tmux: %v %s", err, out)
	}
}

// invalid waits for the n-th "reply was invalid" and the prompt asked again.
func (p *pane) invalid(n int, because string) {
	p.t.Helper()
	p.waitFor("Sorry, your reply was invalid", n)
	if because != "" {
		p.waitFor(because, 1)
	}
}

// exit waits for runner to end and returns its exit code and the screen.
func (p *pane) exit() (int, string) {
	p.t.Helper()
	deadline := time.Now().Add(promptWait)
	for {
		b, err := os.ReadFile(p.exitFile)
		if err == nil {
			code, convErr := strconv.Atoi(strings.TrimSpace(string(b)))
			if convErr != nil {
				p.t.Fatalf("the exit file holds %q", b)
			}
			return code, p.screen()
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("runner did not end within %s:\n%s", promptWait, p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// noPassphrase runs without a passphrase in the environment, so runner asks.
var noPassphrase = []string{"PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE", "AWS_DEFAULT_REGION", "AWS_PROFILE"}

// TestPromptsAskForTheAWSQuestions answers validate -p aws in a real
// terminal: defaults taken with Enter, bad answers asked again, a new
// stack's passphrase asked twice before the first secret, secrets typed
// without echo and saved encrypted.
func TestPromptsAskForTheAWSQuestions(t *testing.T) {
	dir := workspace(t)
	const passphrase = "tmux-passphrase-31"
	secrets := map[string]string{
		"prometheus:adminpass":  "grafana-pw-7d1",
		"sirius:accounts_pwd":   "accounts-pw-c44",
		"sirius:ledger_pwd":     "ledger-pw-19a",
		"sirius:demo_login_pwd": "demo-pw-e0b",
	}
	p := inTmux(t, dir, noPassphrase, nil, "-s", "dev", "-p", "aws", "validate")
	p.answer("AWS region (aws:region) [? for help] (us-east-1)", "") // the default
	p.answer("(vpc:azs)", "us-east-1a;us-east-1b")
	p.invalid(1, `"us-east-1a;us-east-1b" is not one`)
	p.reply("(vpc:azs)", "us-east-1a,us-east-1b")
	p.answer("(eks:k8s_version)", "1.33")
	p.answer("(eks:instance_type)", "")
	p.answer("(eks:min_size)", "three")
	p.invalid(2, "eks:min_size is not accepted")
	p.reply("(eks:min_size)", "2")
	p.answer("(eks:max_size)", "")
	p.answer("(eks:desired_capacity)", "")
	p.answer("Passphrase of stack dev", passphrase)
	p.answer("Re-enter the passphrase to confirm", passphrase)
	p.answer("(prometheus:adminpass)", "") // empty: asked again
	p.invalid(3, "prometheus:adminpass is not accepted")
	p.reply("(prometheus:adminpass)", secrets["prometheus:adminpass"])
	p.answer("(sirius:accounts_pwd)", secrets["sirius:accounts_pwd"])
	p.answer("(sirius:ledger_pwd)", secrets["sirius:ledger_pwd"])
	p.answer("(sirius:demo_login_user)", "")
	p.answer("(sirius:demo_login_pwd)", secrets["sirius:demo_login_pwd"])
	code, screen := p.exit()
	if code != 0 || !strings.Contains(screen, "Saved 12 value(s)") || !strings.Contains(screen, "complete and valid for provider aws") {
		t.Fatalf("validate exited %d:\n%s", code, screen)
	}
	file := readStack(t, dir)
	for key, pw := range secrets {
		if strings.Contains(screen, pw) || strings.Contains(file, pw) {
			t.Errorf("the secret %s was echoed or saved in plain text", key)
		}
		if !regexp.MustCompile(regexp.QuoteMeta(key) + ":\n    secure: v1:").MatchString(file) {
			t.Errorf("%s is not saved as secure: v1:...\n%s", key, file)
		}
	}
	if strings.Contains(file, passphrase) || strings.Contains(screen, passphrase) {
		t.Error("the passphrase was echoed or saved")
	}
	if !strings.HasPrefix(file, "encryptionsalt: v1:") {
		t.Errorf("the new stack has no encryptionsalt:\n%s", file)
	}
	// Every answer reads back with the passphrase typed at the prompt.
	env := []string{"PULUMI_CONFIG_PASSPHRASE=" + passphrase}
	want := map[string]string{
		"aws:region": "us-east-1", "vpc:azs": "us-east-1a,us-east-1b", "eks:k8s_version": "1.33",
		"eks:instance_type": "t2.large", "eks:min_size": "2", "eks:max_size": "12", "eks:desired_capacity": "3",
		"sirius:demo_login_user": "testuser",
	}
	for k, v := range secrets {
		want[k] = v
	}
	for key, v := range want {
		if got := wantRun(t, dir, "", env, 0, "-s", "dev", "config", "get", key).Stdout; got != v+"\n" {
			t.Errorf("%s is %q, want %q", key, got, v)
		}
	}
	if strings.Contains(file, "aws:profile") {
		t.Error("the optional aws:profile was saved without being asked")
	}

	// An existing stack asks its passphrase once; a wrong one exits 3.
	p = inTmux(t, dir, noPassphrase, nil, "-s", "dev", "-p", "aws", "validate")
	p.answer("Passphrase of stack dev", "not-"+passphrase)
	code, screen = p.exit()
	if code != 3 || !strings.Contains(screen, "incorrect passphrase") || strings.Contains(screen, "Re-enter") {
		t.Fatalf("a wrong passphrase at the prompt: exit %d\n%s", code, screen)
	}
	if readStack(t, dir) != file {
		t.Fatal("a wrong passphrase changed the stack config")
	}
}

// TestPromptAsksAgainForAShortAdminPassword: the local provider's only
// question, with the passphrase from the environment.
func TestPromptAsksAgainForAShortAdminPassword(t *testing.T) {
	dir := workspace(t)
	const good = "long-enough-pw-4e8"
	p := inTmux(t, dir, nil, nil, "-s", "dev", "validate")
	p.answer("(app:adminPassword)", "short")
	p.invalid(1, "at least 8")
	p.reply("(app:adminPassword)", good)
	code, screen := p.exit()
	if code != 0 || !strings.Contains(screen, "Saved 1 value(s)") {
		t.Fatalf("validate exited %d:\n%s", code, screen)
	}
	file := readStack(t, dir)
	if strings.Contains(file, good) || strings.Contains(screen, good) || !strings.Contains(file, "app:adminPassword:\n    secure: v1:") {
		t.Fatalf("the admin password is not saved encrypted:\n%s", file)
	}
	if strings.Contains(file, "short") {
		t.Fatal("the rejected answer was saved")
	}
	if got := ok(t, dir, "-s", "dev", "config", "get", "app:adminPassword").Stdout; got != good+"\n" {
		t.Fatalf("app:adminPassword reads back as %q", got)
	}
}

// TestUpOnATerminalPreviewsThenAsks: up without --yes on a terminal shows
// the plan of every project, then asks; "no" changes nothing.
func TestUpOnATerminalPreviewsThenAsks(t *testing.T) {
	dir := deployable(t)
	p := inTmux(t, dir, nil, nil, "up")
	p.waitFor("Do you want to perform this update of stack dev?", 1)
	screen := p.screen()
	for _, want := range []string{"app      preview", "ingress  preview", "to create"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the plan before the question lacks %q:\n%s", want, screen)
		}
	}
	p.reply("Do you want to perform this update", "n")
	code, screen := p.exit()
	if code != 1 || !strings.Contains(screen, "nothing was changed") {
		t.Fatalf("answering no: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(runnerStackDir(dir, "dev")); !os.IsNotExist(err) {
		t.Fatal("answering no left state behind")
	}
}
