package term

import "testing"

func TestCanPromptAndColor(t *testing.T) {
	tests := []struct {
		name          string
		io            IO
		prompt, color bool
	}{
		{"terminal", IO{StdinTTY: true, StdoutTTY: true}, true, true},
		{"piped stdin", IO{StdoutTTY: true}, false, true},
		{"piped stdout", IO{StdinTTY: true}, false, false},
		{"non-interactive", IO{StdinTTY: true, StdoutTTY: true, NonInteractive: true}, false, true},
		{"NO_COLOR", IO{StdinTTY: true, StdoutTTY: true, NoColor: true}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.io.CanPrompt(); got != tt.prompt {
				t.Errorf("CanPrompt = %v", got)
			}
			if got := tt.io.Color(); got != tt.color {
				t.Errorf("Color = %v", got)
			}
		})
	}
}

func TestSystemHonoursNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if System().Color() {
		t.Fatal("NO_COLOR=1 left colour on")
	}
	t.Setenv("CI", "true")
	if System().CanPrompt() {
		t.Fatal("CI=true allows prompts")
	}
}
