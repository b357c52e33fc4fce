package plugins

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultHangEndedByTimeout: a Create that never returns is ended by the
// resource's customTimeouts.
func TestFaultHangEndedByTimeout(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{
		map[string]any{"name": "h", "type": "testprov:index:Thing", "inputs": map[string]any{"hang": true},
			"options": map[string]any{"customTimeouts": map[string]any{"create": "2s"}}},
	}})
	start := time.Now()
	r := e.run("up", "--yes")
	took := time.Since(start)
	if r.Code == 0 || took > 12*time.Second {
		t.Fatalf("up of a hanging create with a 2s timeout: %s after %s", r, took)
	}
	if out := r.Stdout + r.Stderr; !strings.Contains(out, "timed out") && !strings.Contains(out, "timeout") {
		t.Fatalf("the failed up does not mention the timeout: %s", r)
	}
	e.noPlugins("after the timeout")
	if n := len(e.resources()); n != 0 {
		t.Fatalf("the timed-out create left %d resources", n)
	}
}

// TestFaultHangEndedByCtrlC: one SIGINT while a Create hangs ends runner
// within seconds (Cancel, then the signals), with a usable state and no
// plugin process left.
func TestFaultHangEndedByCtrlC(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("h", map[string]any{"hang": true})}})
	b := e.start("up", "--yes", "--json")
	b.waitFor(t, `"step-start"`, "testprov:index:Thing::h")
	time.Sleep(200 * time.Millisecond) // the Create reaches the plugin
	if len(e.pluginProcs()) == 0 {
		t.Fatalf("no plugin process is running during the create: %s", b.result())
	}
	if err := b.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	took := b.wait(t, 15*time.Second)
	r := b.result()
	if r.Code == 0 || took > 8*time.Second {
		t.Fatalf("runner after one Ctrl-C: %s after %s", r, took)
	}
	e.noPlugins("after Ctrl-C")
	e.ok("stack", "export", "--project", "one")
	e.spec("one", map[string]any{"resources": []any{thing("h", map[string]any{"color": "red"})}})
	e.ok("up", "--yes")
	if rs := e.byURNName(); len(rs) != 1 || rs["h"] == nil {
		t.Fatalf("after the interrupted up and a new one the cloud holds %v", rs)
	}
	e.noPlugins("after the next up")
}

// TestFaultKill9DuringUp: kill -9 of runner while a Create is in flight
// leaves no plugin process (Pdeathsig), and the next up resolves the
// pending create and makes the resource once.
func TestFaultKill9DuringUp(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("s", map[string]any{"sleepMs": 5000})}})
	b := e.start("up", "--yes", "--json")
	b.waitFor(t, `"step-start"`, "testprov:index:Thing::s")
	time.Sleep(200 * time.Millisecond)
	if len(e.pluginProcs()) == 0 {
		t.Fatalf("no plugin process is running during the create: %s", b.result())
	}
	if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.wait(t, 5*time.Second)
	e.noPlugins("after kill -9 of runner")

	// The killed run's lock is taken over by the next up (its holder is
	// gone from this host): no stack unlock by hand.
	e.spec("one", map[string]any{"resources": []any{thing("s", map[string]any{})}})
	r := e.ok("up", "--yes")
	if !strings.Contains(r.Stdout, "interrupted") {
		t.Errorf("the next up did not mention the interrupted create: %s", r)
	}
	if rs, n := e.byURNName(), len(e.resources()); n != 1 || rs["s"] == nil {
		t.Fatalf("after kill -9 and a new up the cloud holds %d resources: %v\n%s", n, rs, r)
	}
	got, r := e.counts("preview")
	want(t, "preview after the recovery", got, r, map[string]int{"create": 0, "update": 0, "replace": 0, "delete": 0})
}
