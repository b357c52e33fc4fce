package e2e

import (
	"strings"
	"testing"
)

// TestUpOnATerminalRefusesAfterAConfigChange: up on a terminal shows a
// plan and asks; a `config set` before the answer makes the plan shown
// stale, so the confirmed up refuses (exit 3, nothing changed) instead of
// deploying the old value while the stack config says another.
func TestUpOnATerminalRefusesAfterAConfigChange(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	ok(t, dir, "-s", "dev", "config", "set", "app:port", freePort(t))
	p := inTmux(t, dir, nil, nil, "-s", "dev", "up")
	p.WaitFor("Do you want to perform this update of stack dev?", 1)
	ok(t, dir, "-s", "dev", "config", "set", "app:port", freePort(t))
	before := stateFiles(t, dir)
	p.Reply("Do you want to perform this update", "y")
	code, screen := p.Exit()
	if code != 3 || !strings.Contains(screen, "the stack config changed since the plan was made") {
		t.Fatalf("the confirmed up after a config set: exit %d, want 3 naming the stack config\n%s", code, screen)
	}
	for path, data := range stateFiles(t, dir) {
		if before[path] != data {
			t.Errorf("the refused up changed %s", path)
		}
	}
}
