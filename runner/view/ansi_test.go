package view

import (
	"testing"

	"github.com/runnerhq/runner/runner/event"
)

func TestWithoutEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[31mError\x1b[0m: not found", "Error: not found"},
		{"  7:       value: \x1b[1;4m${nosuch.value}\x1b[0m", "  7:       value: ${nosuch.value}"},
		{"\x1b]8;;https://x\x07link\x1b]8;;\x07 and \x1b[2K\x1b[1Gline", "link and line"},
		{"plain [brackets] stay", "plain [brackets] stay"},
	}
	for _, tt := range tests {
		e := withoutEscapes(event.Event{Message: tt.in, Error: tt.in, Projects: []event.Row{{Error: tt.in}}})
		if e.Message != tt.want || e.Error != tt.want || e.Projects[0].Error != tt.want {
			t.Errorf("withoutEscapes(%q) = %q, %q, %q; want %q", tt.in, e.Message, e.Error, e.Projects[0].Error, tt.want)
		}
	}
}
