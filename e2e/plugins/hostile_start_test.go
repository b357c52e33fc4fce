package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostilePluginExitsAfterPort: a plugin that prints a port and exits at
// once fails the up quickly (not after the connect timeout) with a message
// that says the plugin exited, naming the binary.
func TestHostilePluginExitsAfterPort(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	dir := t.TempDir()
	bin := filepath.Join(dir, "pulumi-resource-testprov")
	script := "#!/bin/sh\necho 45678\necho 'bye from the plugin' >&2\nexit 0\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, "PATH="+dir+":/usr/bin:/bin")
	start := time.Now()
	r := e.run("up", "--yes")
	took := time.Since(start)
	out := r.Stdout + r.Stderr
	if r.Code == 0 || !strings.Contains(out, bin) || !strings.Contains(out, "exited with status 0") {
		t.Fatalf("up with a plugin that exits after its port: want a failure naming %s that says it exited, got %s", bin, r)
	}
	if took > 6*time.Second {
		t.Fatalf("up with a plugin that exited at once took %s to fail", took)
	}
	if n := len(e.resources()); n != 0 {
		t.Fatalf("the failed up made %d resources", n)
	}
}
