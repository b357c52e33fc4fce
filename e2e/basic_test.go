package e2e

import (
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	dir := workspace(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"providers", []string{"providers"}, 0, "local (default)"},
		{"version", []string{"version"}, 0, "runner "},
		{"show aws dot", []string{"-p", "aws", "show", "--format", "dot"}, 0, `"eks" -> "kubeconfig"`},
		{"unknown provider", []string{"-p", "nope", "show"}, 2, `there is no provider "nope"`},
		{"unknown format", []string{"show", "--format", "svg"}, 2, "unknown format"},
		{"unknown flag", []string{"up", "--bogus"}, 2, "bogus"},
		{"unknown command", []string{"bogus"}, 2, `unknown command "bogus"`},
		{"unknown subcommand", []string{"config", "bogus"}, 2, `unknown command "bogus"`},
		{"json error", []string{"--json", "-p", "nope", "show"}, 2, `{"exit_code":2,"message":"there is no provider \"nope\"`},
		{"show-execution alias", []string{"-p", "aws", "show-execution"}, 0, "└──  6. sirius"},
		{"list-providers alias", []string{"--json", "list-providers"}, 0, `"name": "aws"`},
		{"no stack", []string{"preview"}, 3, "no stack selected"},
		{"no such stack", []string{"-s", "dev", "preview"}, 3, "stack dev does not exist in this workspace"},
		{"missing config", []string{"-s", "dev", "up", "--yes"}, 3, "config set --secret app:adminPassword"},
		// up -p aws first lists the missing config (exit 3, issue 9); with
		// its config complete it refuses to deploy (aws_test.go).
		{"aws up lists missing config first", []string{"-s", "dev", "-p", "aws", "up", "--yes"}, 3, "config set --secret sirius:ledger_pwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, "", nil, tt.args...)
			if r.Code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.Code, tt.code, r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stdout+r.Stderr, tt.want) {
				t.Fatalf("output lacks %q:\n%s%s", tt.want, r.Stdout, r.Stderr)
			}
		})
	}
}

func TestStackMismatchExits2(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "-s", "dev", "config", "set", "app:port", "18443")
	r := run(t, dir, "", nil, "-s", "prod", "config", "ls")
	if r.Code != 2 || !strings.Contains(r.Stderr, `"prod"`) || !strings.Contains(r.Stderr, "PULUMI_STACK=dev") {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
}
