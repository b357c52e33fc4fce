package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runnerhq/runner/runner/term"
)

// TestNormalize checks how a command line is reordered: the command path
// first, then every flag with its value in the order given, then the
// arguments (behind -- when one of them starts with a dash).
func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"up --provider aws", "up --provider aws"},
		{"--provider aws up", "up --provider aws"},
		{"-s dev show -p aws --format dot", "show -s dev -p aws --format dot"},
		{"show -p aws --format dot -s dev", "show -p aws --format dot -s dev"},
		{"config set app:port 8080 --stack dev", "config set --stack dev app:port 8080"},
		{"config set --secret k v", "config set --secret k v"},
		{"config set k v --secret", "config set --secret k v"},
		{"config set app:x -- -5", "config set -- app:x -5"},
		{"config set -s dev -- app:x --json", "config set -s dev -- app:x --json"},
		{"stack export --project app --file out.json", "stack export --project app --file out.json"},
		{"--json stack history", "stack history --json"},
		{"stack --json history --project app", "stack history --json --project app"},
		// A value that names a command is the flag's value.
		{"-s up up", "up -s up"},
		{"--stack=dev up", "up --stack=dev"},
		// A short flag with its value attached, as pflag reads it.
		{"up -sdev -paws", "up -s=dev -p=aws"},
		{"-sdev preview -d", "preview -s=dev -d"},
		// A bool flag never eats the next word.
		{"--json providers", "providers --json"},
		{"config get --json app:port", "config get --json app:port"},
		{"config set --secret=true k v", "config set --secret=true k v"},
		// A command's own flag before the command: its kind comes from the
		// command that defines it.
		{"--format dot show", "show --format dot"},
		{"--yes up", "up --yes"},
		{"--project app stack export", "stack export --project app"},
		// Help anywhere.
		{"-h up", "up -h"},
		{"stack --help export", "stack export --help"},
		{"config set k v --help", "config set --help"},
		{"help up -s dev", "-s dev help up"}, // urfave/cli adds the help command later
		// Unknown words and flags are left for urfave/cli to reject.
		{"bogus up", "bogus up"},
		{"up --bogus x", "up --bogus x"},
		{"config bogus --json", "config --json bogus"},
		{"config set k -", "config set k -"},
		{"", ""},
		{"--non-interactive", "--non-interactive"},
		{"up --target a --parallel 2 --target b", "up --target a --parallel 2 --target b"},
		{"up --generate-bash-completion", "up --generate-bash-completion"},
		{"--json up --generate-bash-completion", "up --json --generate-bash-completion"},
	}
	app := newApp(&term.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	for _, tt := range tests {
		args := append([]string{"runner"}, strings.Fields(tt.in)...)
		got := strings.Join(normalize(app, args).argv[1:], " ")
		if got != tt.want {
			t.Errorf("runner %s\n got: runner %s\nwant: runner %s", tt.in, got, tt.want)
		}
	}
}

// TestBoolFlagLastWins checks how the final error's format is chosen: the
// last --json counts, and a word after -- or a flag's value is no flag.
func TestBoolFlagLastWins(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"up --json", true},
		{"--json up", true},
		{"--json up --json=false", false},
		{"--json=false up --json", true},
		{"config set k -- --json", false},
		{"-s --json up", false},
		{"up", false},
	}
	app := newApp(&term.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	for _, tt := range tests {
		cl := normalize(app, append([]string{"runner"}, strings.Fields(tt.in)...))
		if got := cl.boolFlag("json"); got != tt.want {
			t.Errorf("runner %s: --json is %v, want %v", tt.in, got, tt.want)
		}
	}
}
