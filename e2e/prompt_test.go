package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/testenv"
	"github.com/runnerhq/runner/internal/tmuxpane"
)

// pane is runner running in a real terminal (a tmux pane).
type pane = tmuxpane.Pane

// inTmux starts runner with args in a 200x50 tmux pane, in workspace dir,
// with the environment of the e2e runs minus unset, plus set. The pane
// stays open after runner exits, to be read.
func inTmux(t *testing.T, dir string, unset, set []string, args ...string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Unavailable(t, "tmux is not installed: the prompt tests need a real terminal (.ci/run installs tmux; locally: apt-get install tmux)")
	}
	cmd := []string{"env", "-u", "CI", "-u", "TMUX"}
	for _, k := range unset {
		cmd = append(cmd, "-u", k)
	}
	cmd = append(append(cmd, set...), binary, "--root", dir)
	return tmuxpane.Start(t, dir, baseEnv(), append(cmd, args...))
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
	p.Answer("AWS region (aws:region) [? for help] (us-east-1)", "") // the default
	p.Answer("(vpc:azs)", "us-east-1a;us-east-1b")
	p.Invalid(1, `"us-east-1a;us-east-1b" is not one`)
	p.Reply("(vpc:azs)", "us-east-1a,us-east-1b")
	p.Answer("(eks:k8s_version)", "1.33")
	p.Answer("(eks:instance_type)", "")
	p.Answer("(eks:min_size)", "three")
	p.Invalid(2, "eks:min_size is not accepted")
	p.Reply("(eks:min_size)", "2")
	p.Answer("(eks:max_size)", "")
	p.Answer("(eks:desired_capacity)", "")
	p.Answer("Passphrase of stack dev", passphrase)
	p.Answer("Re-enter the passphrase to confirm", passphrase)
	p.Answer("(prometheus:adminpass)", "") // empty: asked again
	p.Invalid(3, "prometheus:adminpass is not accepted")
	p.Reply("(prometheus:adminpass)", secrets["prometheus:adminpass"])
	p.Answer("(sirius:accounts_pwd)", secrets["sirius:accounts_pwd"])
	p.Answer("(sirius:ledger_pwd)", secrets["sirius:ledger_pwd"])
	p.Answer("(sirius:demo_login_user)", "")
	p.Answer("(sirius:demo_login_pwd)", secrets["sirius:demo_login_pwd"])
	code, screen := p.Exit()
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
	p.Answer("Passphrase of stack dev", "not-"+passphrase)
	code, screen = p.Exit()
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
	p.Answer("(app:adminPassword)", "short")
	p.Invalid(1, "at least 8")
	p.Reply("(app:adminPassword)", good)
	code, screen := p.Exit()
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
	p.WaitFor("Do you want to perform this update of stack dev?", 1)
	screen := p.Screen()
	for _, want := range []string{"app      preview", "ingress  preview", "to create"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the plan before the question lacks %q:\n%s", want, screen)
		}
	}
	p.Reply("Do you want to perform this update", "n")
	code, screen := p.Exit()
	if code != 1 || !strings.Contains(screen, "nothing was changed") {
		t.Fatalf("answering no: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(runnerStackDir(dir, "dev")); !os.IsNotExist(err) {
		t.Fatal("answering no left state behind")
	}
}
