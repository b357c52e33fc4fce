package pulumiprojects

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestYAMLHostGCSetting: the YAML host runs with GOGC=400 and a GOMEMLIMIT
// ceiling when the user set neither, the plugin runner starts keeps Go's
// defaults, and a user's GOGC wins: the host gets it and no limit. Read
// from the processes' environments while a create sleeps in the plugin.
func TestYAMLHostGCSetting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the processes' environments from /proc")
	}
	for _, user := range []string{"", "GOGC=50"} {
		t.Run("user="+user, func(t *testing.T) {
			w := newWS(t)
			store := w.withHosts(t, true)
			w.write(map[string]string{
				"y/Pulumi.yaml": "name: y\nruntime: yaml\nresources:\n  slow:\n    type: testprov:index:Thing\n    properties:\n      sleepMs: 30000\n",
				"runner.yaml":   "providers:\n  e:\n    projects:\n      y: {path: y}\n",
			})
			w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
			cmd := exec.Command(binary, "--root", w.dir, "-p", "e", "-s", "dev", "up", "--yes")
			cmd.Env = w.environ()
			if user != "" {
				cmd.Env = append(cmd.Env, user)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				_ = cmd.Wait()
			}()
			var host, plugin []string
			for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && (host == nil || plugin == nil); {
				time.Sleep(200 * time.Millisecond)
				host, plugin = nil, nil
				var walk func(pid int, underHost bool)
				walk = func(pid int, underHost bool) {
					for _, c := range children(pid) {
						comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c))
						env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", c))
						vars := strings.Split(string(env), "\x00")
						switch name := strings.TrimSpace(string(comm)); {
						case strings.HasPrefix(name, "pulumi-languag"):
							host = vars
							walk(c, true)
							continue
						case strings.HasPrefix(name, "pulumi-resourc") && !underHost:
							plugin = vars
						}
						walk(c, underHost)
					}
				}
				walk(cmd.Process.Pid, false)
			}
			if host == nil || plugin == nil {
				t.Fatalf("found the host %v and runner's plugin %v: want both running", host != nil, plugin != nil)
			}
			gc := func(env []string) string {
				var out []string
				for _, kv := range env {
					if strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
						out = append(out, kv)
					}
				}
				return strings.Join(out, " ")
			}
			switch got := gc(host); {
			case user != "" && got != user:
				t.Errorf("the host runs with %q, want the user's %q", got, user)
			case user == "" && (!slices.Contains(host, "GOGC=400") || !strings.Contains(got, "GOMEMLIMIT=")):
				t.Errorf("the host runs with %q, want GOGC=400 and a GOMEMLIMIT", got)
			}
			if got := gc(plugin); got != user {
				t.Errorf("runner's plugin runs with %q, want %q (Go's defaults unless the user's)", got, user)
			}
		})
	}
}
