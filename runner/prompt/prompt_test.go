package prompt

import (
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/runner/term"
)

func TestMissingConfigErrorListsEveryKey(t *testing.T) {
	err := &MissingConfigError{Stack: "dev", File: "config/pulumi/Pulumi.dev.yaml", Missing: []Missing{
		{Key: "aws:region", Message: "AWS region"},
		{Key: "prometheus:adminpass", Message: "Grafana password", Secret: true},
	}}
	msg := err.Error()
	for _, want := range []string{
		"missing 2 config values in config/pulumi/Pulumi.dev.yaml",
		"runner --stack dev config set aws:region <value>   # AWS region",
		"runner --stack dev config set --secret prometheus:adminpass <value>",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
}

type never struct{ Asker }

func (never) Confirm(string, bool) (bool, error) { return false, errors.New("asked") }

func TestConfirm(t *testing.T) {
	tty := &term.IO{StdinTTY: true, StdoutTTY: true}
	pipe := &term.IO{}
	tests := []struct {
		name string
		io   *term.IO
		yes  bool
		ok   bool
		err  error
	}{
		{"--yes needs no question", pipe, true, true, nil},
		{"no terminal and no --yes", pipe, false, false, ErrYesRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := Confirm(tt.io, never{}, "go?", tt.yes)
			if ok != tt.ok || !errors.Is(err, tt.err) {
				t.Fatalf("Confirm = %v, %v", ok, err)
			}
		})
	}
	if _, err := Confirm(tty, never{}, "go?", false); err == nil || err.Error() != "asked" {
		t.Fatalf("on a terminal Confirm must ask: %v", err)
	}
}
