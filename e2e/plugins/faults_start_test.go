package plugins

import (
	"archive/tar"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFaultBadStart: a plugin that prints no port, or garbage where its
// port should be, fails the up with a message naming the binary; nothing
// changes and no plugin process is left.
func TestFaultBadStart(t *testing.T) {
	for _, mode := range []string{"noport", "garbage"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
			e.extra = append(e.extra, "TESTPROV_BAD_START="+mode)
			r := e.run("up", "--yes")
			bin := filepath.Join(pluginDir, "pulumi-resource-testprov")
			if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, bin) {
				t.Fatalf("up with a plugin that starts badly (%s): want a failure naming %s, got %s", mode, bin, r)
			}
			if n := len(e.resources()); n != 0 {
				t.Fatalf("the failed up made %d resources", n)
			}
			e.noPlugins("after a bad start")
			if strings.Contains(e.stateFiles(), "testprov:index:Thing") {
				t.Fatalf("the failed up recorded the resource")
			}
		})
	}
}

// TestFaultPluginMissing: with the plugin neither on PATH nor in the cache,
// preview and up stop before any change with exit 3 and the install command.
func TestFaultPluginMissing(t *testing.T) {
	e := newEnv(t)
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	e.extra = append(e.extra, "PATH=/usr/bin:/bin")
	for _, args := range [][]string{{"preview"}, {"up", "--yes"}} {
		r := e.fails(3, args...)
		out := r.Stdout + r.Stderr
		if !strings.Contains(out, "runner plugin install") || !strings.Contains(out, "testprov") || !strings.Contains(out, "1.2.3") {
			t.Errorf("runner %v without the plugin does not give the install command: %s", args, r)
		}
	}
	if n := len(e.resources()); n != 0 || strings.Contains(e.stateFiles(), "testprov:index:Thing") {
		t.Fatalf("a run without its plugin changed something (%d resources)", n)
	}
}

// TestFaultInstallThenUp: `runner plugin install` from a mirror serving
// Pulumi's tarball layout puts the plugin in PULUMI_HOME, where `up` (the
// plugin not on PATH) and `runner plugin ls` find it.
func TestFaultInstallThenUp(t *testing.T) {
	e := newEnv(t)
	asset := "pulumi-resource-testprov-v1.2.3-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	tarball := filepath.Join(t.TempDir(), asset)
	writeTarball(t, tarball, filepath.Join(pluginDir, "pulumi-resource-testprov"))
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(tarball))))
	defer srv.Close()
	e.extra = append(e.extra, "PATH=/usr/bin:/bin")

	e.ok("plugin", "install", "testprov", "1.2.3", "--server", srv.URL)
	home := strings.TrimPrefix(e.extra[0], "PULUMI_HOME=")
	if _, err := os.Stat(filepath.Join(home, "plugins", "resource-testprov-v1.2.3", "pulumi-resource-testprov")); err != nil {
		t.Fatalf("the install did not use Pulumi's layout: %v", err)
	}
	if r := e.ok("plugin", "ls"); !strings.Contains(r.Stdout, "testprov") || !strings.Contains(r.Stdout, "1.2.3") {
		t.Fatalf("plugin ls does not list the installed plugin: %s", r)
	}
	e.spec("one", map[string]any{"resources": []any{thing("a", map[string]any{"color": "red"})}})
	e.ok("up", "--yes")
	if rs := e.byURNName(); len(rs) != 1 || rs["a"] == nil {
		t.Fatalf("the up with the installed plugin made %v", rs)
	}
	e.noPlugins("after the up")
}

// writeTarball writes a .tar.gz holding bin at its root.
func writeTarball(t *testing.T, path, bin string) {
	t.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	hdr := &tar.Header{Name: filepath.Base(bin), Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(hdr); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
}
