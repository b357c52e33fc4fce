package plugins

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var hex8 = regexp.MustCompile(`-[0-9a-f]{8}$`)

// Every project uses the plugin; --parallel 1 --step-parallel 1 and
// --parallel 9 give the same state, and one plugin process serves the run.
func TestHostile2ParallelOnePlugin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	projects := []string{"one", "two", "three", "c1", "c2", "c3", "c4", "c5", "c6"}
	for _, p := range projects {
		e.spec(p, map[string]any{
			"resources": []any{
				thing("x", map[string]any{"sleepMs": 150, "p": p}),
				thing("y", map[string]any{"sleepMs": 150, "peer": map[string]any{"$output": "x.name"}}),
				thing("z", map[string]any{"sleepMs": 150}),
			},
		})
	}
	var snaps []string
	for _, args := range [][]string{{"--parallel", "1", "--step-parallel", "1"}, {"--parallel", "9"}} {
		_ = os.Remove(filepath.Join(string(e.store), "maxInFlight"))
		var mu sync.Mutex
		most := 0
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				pids := e.pluginProcs()
				n := len(pids)
				mu.Lock()
				most = max(most, n)
				mu.Unlock()
			}
		}()
		got, r := e.counts(append([]string{"up"}, args...)...)
		close(stop)
		<-done
		want(t, "up "+strings.Join(args, " "), got, r, map[string]int{"create": 27})
		if most != 1 {
			t.Fatalf("up %v: %d plugin processes at once, want 1", args, most)
		}
		inflight, _ := os.ReadFile(filepath.Join(string(e.store), "maxInFlight"))
		t.Logf("up %v: max in flight %s", args, inflight)
		if args[1] == "1" && strings.TrimSpace(string(inflight)) != "1" {
			t.Fatalf("--parallel 1 --step-parallel 1 ran %s calls at once", inflight)
		}
		var lines []string
		names := map[string]string{}
		for _, res := range e.resources() {
			names[res["urn"].(string)] = res["inputs"].(map[string]any)["name"].(string)
		}
		for _, res := range e.resources() {
			in := res["inputs"].(map[string]any)
			// Auto-names come from Check's random seed, new at every create
			// (as Pulumi's); compare their shape, and the peer against x's.
			peer, _ := in["peer"].(string)
			if peer != "" && peer != names[strings.Replace(res["urn"].(string), "::y", "::x", 1)] {
				t.Fatalf("up %v: %s's peer %q is not x's name", args, res["urn"], peer)
			}
			lines = append(lines, res["urn"].(string)+" "+hex8.ReplaceAllString(in["name"].(string), "-*")+" "+hex8.ReplaceAllString(peer, "-*"))
		}
		sort.Strings(lines)
		snaps = append(snaps, strings.Join(lines, "\n"))
		e.destroyAll()
	}
	if snaps[0] != snaps[1] || len(snaps[0]) == 0 {
		t.Fatalf("the states differ:\n%s\n---\n%s", snaps[0], snaps[1])
	}
}
