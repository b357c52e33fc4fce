package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// configSetLines returns the `runner ... config set ...` lines of out,
// sorted.
func configSetLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "config set") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	sort.Strings(lines)
	return lines
}

// TestUpProviderAWSNonInteractive is the acceptance line: on an
// empty workspace (the stack named by PULUMI_STACK, as in CI),
// `runner up --provider aws --non-interactive` exits 3 listing every
// missing key with its `runner config set` command, the same list as
// validate, instead of exit 2 on its own flag.
func TestUpProviderAWSNonInteractive(t *testing.T) {
	dir := workspace(t)
	env := []string{"PULUMI_STACK=dev"}
	r := runAs(t, dir, "", env, "up", "--provider", "aws", "--non-interactive")
	if r.Code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	got := configSetLines(r.Stderr)
	for _, key := range []string{"vpc:azs", "prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		if !strings.Contains(strings.Join(got, "\n"), "config set "+key) && !strings.Contains(strings.Join(got, "\n"), "config set --secret "+key) {
			t.Errorf("the missing key %s is not listed with its config set command:\n%s", key, r.Stderr)
		}
	}
	v := runAs(t, workspace(t), "", env, "-p", "aws", "--non-interactive", "validate")
	if want := configSetLines(v.Stderr); v.Code != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("up lists\n%s\nvalidate (exit %d) lists\n%s", strings.Join(got, "\n"), v.Code, strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(dir, ".runner")); !os.IsNotExist(err) {
		t.Fatalf("up -p aws made a state folder (%v)", err)
	}
}

// TestUpProviderAWSInAnEmptyWorkspace: with no stack selected either, the
// same command line exits 3 naming the missing stack and every missing
// key, with the command that sets it, and writes nothing.
func TestUpProviderAWSInAnEmptyWorkspace(t *testing.T) {
	dir := workspace(t)
	r := runAs(t, dir, "", nil, "up", "--provider", "aws", "--non-interactive")
	if r.Code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"no stack selected: pass --stack NAME",
		"runner --stack <NAME> config set vpc:azs <value>",
		"runner --stack <NAME> config set --secret prometheus:adminpass <value>",
		"runner --stack <NAME> config set --secret sirius:accounts_pwd <value>",
		"runner --stack <NAME> config set --secret sirius:ledger_pwd <value>",
		"runner --stack <NAME> config set --secret sirius:demo_login_pwd <value>"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("up does not say %q:\n%s", want, r.Stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("up with no stack selected wrote into the workspace: %v", entries)
	}
}

// TestFlagsAnywhereThroughTheBinary types the command lines of the issue
// the way users do; each gives what the same flags before the command give.
func TestFlagsAnywhereThroughTheBinary(t *testing.T) {
	tests := []struct {
		name         string
		after, front []string // flags after the command (new) and before it (as before)
		code         int
		want         string
	}{
		{"show", []string{"show", "-p", "aws", "--format", "dot", "-s", "dev"},
			[]string{"-p", "aws", "-s", "dev", "show", "--format", "dot"}, 0, `"eks" -> "kubeconfig"`},
		{"preview --json", []string{"preview", "--json", "-s", "dev"},
			[]string{"--json", "-s", "dev", "preview"}, 3, `"exit_code":3`},
		{"validate --non-interactive", []string{"validate", "--non-interactive", "--stack=dev"},
			[]string{"--non-interactive", "--stack=dev", "validate"}, 3, "config set --secret app:adminPassword"},
		{"stack history --json", []string{"stack", "history", "--json", "-s", "dev"},
			[]string{"--json", "-s", "dev", "stack", "history"}, 3, `stack dev does not exist`},
		{"error as JSON", []string{"show", "--format", "svg", "--json"},
			[]string{"--json", "show", "--format", "svg"}, 2, `"type":"error"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := runAs(t, workspace(t), "", nil, tt.after...)
			b := runAs(t, workspace(t), "", nil, tt.front...)
			if a.Code != tt.code || !strings.Contains(a.Stdout+a.Stderr, tt.want) {
				t.Fatalf("runner %s: exit %d (want %d, %q)\nstdout:\n%s\nstderr:\n%s", strings.Join(tt.after, " "), a.Code, tt.code, tt.want, a.Stdout, a.Stderr)
			}
			if a.Code != b.Code || mask(a.Stdout) != mask(b.Stdout) || mask(a.Stderr) != mask(b.Stderr) {
				t.Fatalf("runner %s and runner %s differ:\n%+v\n%+v", strings.Join(tt.after, " "), strings.Join(tt.front, " "), a, b)
			}
		})
	}
}

var maskRE = regexp.MustCompile(`/[^ "]*/(TestFlags[^ "/]*/)?\d+|"time":"[^"]*"|\d+ms`)

// mask hides the workspace folders and times that differ between two runs.
func mask(s string) string { return maskRE.ReplaceAllString(s, "<masked>") }

// TestCommandFlagsAfterArguments checks a command's own flags after its
// arguments, -- before a value that starts with a dash, and that a flag
// given twice keeps its later value.
func TestCommandFlagsAfterArguments(t *testing.T) {
	dir := workspace(t)
	must := func(args ...string) Result {
		t.Helper()
		r := runAs(t, dir, "", nil, args...)
		if r.Code != 0 {
			t.Fatalf("runner %s: exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		}
		return r
	}
	must("config", "set", "app:port", "8080", "--stack", "dev")
	must("config", "set", "--secret", "app:first", "one-secret")
	must("config", "set", "app:second", "two-secret", "--secret")
	must("config", "set", "app:offset", "--", "-5")
	must("-s", "prod", "config", "set", "app:later", "wins", "-s", "dev") // the later -s counts

	var ls map[string]struct {
		Value  any  `json:"value"`
		Secret bool `json:"secret"`
	}
	if err := json.Unmarshal([]byte(must("config", "ls", "--json").Stdout), &ls); err != nil {
		t.Fatal(err)
	}
	if ls["app:port"].Value != "8080" || !ls["app:first"].Secret || !ls["app:second"].Secret || ls["app:offset"].Value != "-5" || ls["app:later"].Value != "wins" {
		t.Fatalf("config ls --json: %+v", ls)
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "pulumi", "Pulumi.prod.yaml")); !os.IsNotExist(err) {
		t.Fatalf("the earlier -s prod was used (%v)", err)
	}
	if got := strings.TrimSpace(must("config", "get", "app:second", "-s", "dev").Stdout); got != "two-secret" {
		t.Fatalf("config get app:second: %q", got)
	}

	state := filepath.Join(dir, "state.json")
	if err := os.WriteFile(state, []byte(appState), 0o644); err != nil {
		t.Fatal(err)
	}
	must("stack", "import", "--project", "app", "--file", state)
	must("stack", "export", "--project", "app", "--file", "out.json")
	if data, err := os.ReadFile(filepath.Join(dir, "out.json")); err != nil || !strings.Contains(string(data), "app-dev") {
		t.Fatalf("stack export --file out.json wrote %q (%v)", data, err)
	}

	r := runAs(t, dir, "", nil, "config", "set", "app:offset", "-5")
	if r.Code != 2 || !strings.Contains(r.Stderr, "unknown flag -5 for `runner config set`") || !strings.Contains(r.Stderr, "-- -5") {
		t.Fatalf("a value starting with a dash without --: exit %d\n%s", r.Code, r.Stderr)
	}
	r = runAs(t, dir, "", nil, "up", "--bogus")
	if r.Code != 2 || !strings.Contains(r.Stderr, "unknown flag --bogus for `runner up`") {
		t.Fatalf("an unknown flag: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, args := range [][]string{{"up", "--help"}, {"--help", "up"}, {"stack", "export", "-h"}, {"config", "set", "k", "v", "--help"}} {
		r := must(args...)
		if !strings.Contains(r.Stdout, "GLOBAL OPTIONS") || !strings.Contains(r.Stdout, "--stack NAME, -s NAME") {
			t.Fatalf("runner %s shows no global flags:\n%s", strings.Join(args, " "), r.Stdout)
		}
	}
}

// appState is a deployment of project app on stack dev: its stack
// resource alone.
const appState = `{"version": 3, "deployment": {"manifest": {"time": "2024-01-01T00:00:00Z", "magic": "", "version": ""},
  "resources": [{"urn": "urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev", "custom": false, "type": "pulumi:pulumi:Stack",
    "outputs": {"url": "https://127.0.0.1:18443"}}]}}`

// TestOneSentenceCommandsSpeakJSON: a command that ends with one sentence
// prints it as a JSON object with --json, wherever the flag stands.
func TestOneSentenceCommandsSpeakJSON(t *testing.T) {
	dir := workspace(t)
	for _, args := range [][]string{
		{"stack", "init", "dev", "--json"},
		{"--json", "stack", "select", "dev"},
		{"stack", "unlock", "-s", "dev", "--json"},
	} {
		r := ok(t, dir, args...)
		var got struct{ Type, Message string }
		if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || got.Type != "result" || got.Message == "" {
			t.Errorf("runner %s printed %q, want one JSON result object (%v)", strings.Join(args, " "), r.Stdout, err)
		}
	}
}
