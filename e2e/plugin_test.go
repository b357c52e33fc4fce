package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runnerhq/runner/internal/golden"
)

// pluginArchive is a release asset in Pulumi's layout: the binary at the
// root next to LICENSE.
func pluginArchive(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{
		{"pulumi-resource-" + name, "#!/bin/sh\nexit 1\n"}, {"LICENSE", "Apache License 2.0\n"}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// pluginServer serves the assets of the plugins named (name@version), by
// Pulumi's asset name, slowly enough for two installs to overlap, and
// counts the downloads.
type pluginServer struct {
	*httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	files map[string][]byte
}

func newPluginServer(t *testing.T, plugins ...string) *pluginServer {
	s := &pluginServer{hits: map[string]int{}, files: map[string][]byte{}}
	for _, p := range plugins {
		name, version, _ := strings.Cut(p, "@")
		s.files["/"+assetName(name, version)] = pluginArchive(t, name)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		body, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		time.Sleep(200 * time.Millisecond)
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pluginServer) count(name, version string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits["/"+assetName(name, version)]
}

func assetName(name, version string) string {
	return fmt.Sprintf("pulumi-resource-%s-v%s-%s-%s.tar.gz", name, version, runtime.GOOS, runtime.GOARCH)
}

// wantCode runs runner and fails unless it exits with code.
func wantCode(t *testing.T, dir string, env []string, code int, args ...string) Result {
	t.Helper()
	r := run(t, dir, "", env, args...)
	if r.Code != code {
		t.Fatalf("runner %s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, code, r.Stdout, r.Stderr)
	}
	return r
}

func TestPluginInstallListRemove(t *testing.T) {
	dir, home := workspace(t), t.TempDir()
	env := []string{"PULUMI_HOME=" + home, "PULUMI_IGNORE_AMBIENT_PLUGINS=true"}
	srv := newPluginServer(t, "testx@1.0.0")

	r := wantCode(t, dir, env, 0, "plugin", "install", "testx", "1.0.0", "--server", srv.URL)
	if !strings.Contains(r.Stdout, "Installed plugin testx 1.0.0") || !strings.Contains(r.Stderr, "downloading "+assetName("testx", "1.0.0")) {
		t.Errorf("install said:\n%s%s", r.Stdout, r.Stderr)
	}
	bin := filepath.Join(home, "plugins", "resource-testx-v1.0.0", "pulumi-resource-testx")
	if st, err := os.Stat(bin); err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the plugin binary: %v %v", st, err)
	}
	r = wantCode(t, dir, env, 0, "plugin", "install", "testx", "v1.0.0", "--server", srv.URL)
	if !strings.Contains(r.Stdout, "already installed") || srv.count("testx", "1.0.0") != 1 {
		t.Errorf("a second install downloaded again (%d) or did not say so:\n%s", srv.count("testx", "1.0.0"), r.Stdout)
	}

	ls := wantCode(t, dir, env, 0, "plugin", "ls")
	golden.Check(t, "plugin/ls.golden", []byte(normalize(home, ls.Stdout)))
	lsJSON := wantCode(t, dir, env, 0, "plugin", "ls", "--json")
	golden.Check(t, "plugin/ls.json.golden", []byte(normalize(home, lsJSON.Stdout)))
	var listed []struct {
		Name, Version, Path string
		Ambient             bool
	}
	if err := json.Unmarshal([]byte(lsJSON.Stdout), &listed); err != nil || len(listed) != 1 || listed[0].Name != "testx" || listed[0].Version != "1.0.0" || listed[0].Path != bin {
		t.Fatalf("plugin ls --json = %s (%v)", lsJSON.Stdout, err)
	}

	r = wantCode(t, dir, env, 0, "plugin", "rm", "testx")
	if !strings.Contains(r.Stdout, "Removed plugin testx 1.0.0") {
		t.Errorf("rm said: %s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Dir(bin)); !os.IsNotExist(err) {
		t.Errorf("the plugin directory is still there (%v)", err)
	}
	r = wantCode(t, dir, env, 3, "plugin", "rm", "testx", "1.0.0")
	if !strings.Contains(r.Stderr, "not installed") {
		t.Errorf("rm of nothing said: %s", r.Stderr)
	}
	if r := wantCode(t, dir, env, 0, "plugin", "ls", "--json"); strings.TrimSpace(r.Stdout) != "[]" {
		t.Errorf("plugin ls --json of an empty cache = %s", r.Stdout)
	}
}

func TestPluginInstallErrors(t *testing.T) {
	dir, home := workspace(t), t.TempDir()
	env := []string{"PULUMI_HOME=" + home}
	srv := newPluginServer(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plugin", "install"}, 2, "plugin install takes NAME [VERSION]"},
		{[]string{"plugin", "install", "a", "1.0.0", "x"}, 2, "too many arguments"},
		{[]string{"plugin", "install", "../a", "1.0.0"}, 2, "not a plugin name"},
		{[]string{"plugin", "install", "a", "one"}, 2, "not a semantic version"},
		{[]string{"plugin", "install", "-p", "local"}, 2, "provider local needs no resource plugins"},
		{[]string{"plugin", "install", "nope", "--server", srv.URL}, 2, "VERSION --server"},
		{[]string{"plugin", "install", "nope", "1.0.0", "--server", srv.URL}, 1, "404 Not Found"},
		{[]string{"plugin", "rm"}, 2, "plugin rm takes NAME"},
	} {
		r := wantCode(t, dir, env, c.code, c.args...)
		if !strings.Contains(r.Stderr, c.want) {
			t.Errorf("runner %s said %q, want %q", strings.Join(c.args, " "), r.Stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "plugins")); len(entries) > 1 {
		t.Errorf("failed installs left files: %v", entries)
	}
}

// TestPluginInstallConcurrentAndKilled runs two installs of one plugin at
// once (one download, one good copy), then redoes an install a kill left
// half done.
func TestPluginInstallConcurrentAndKilled(t *testing.T) {
	dir, home := workspace(t), t.TempDir()
	env := append(baseEnv(), "PULUMI_HOME="+home, "PULUMI_IGNORE_AMBIENT_PLUGINS=true")
	srv := newPluginServer(t, "testx@1.0.0")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := exec.Command(binary, "plugin", "install", "testx", "1.0.0", "--server", srv.URL)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("install %d: %v\n%s", i, err, outs[i])
		}
	}
	if n := srv.count("testx", "1.0.0"); n != 1 {
		t.Errorf("two installs downloaded %d times, want 1", n)
	}
	plugin := filepath.Join(home, "plugins", "resource-testx-v1.0.0")
	if _, err := os.Stat(filepath.Join(plugin, "LICENSE")); err != nil {
		t.Fatal(err)
	}

	// What a kill in the middle of an install leaves: the marker, and a
	// directory without its binary.
	os.Remove(filepath.Join(plugin, "pulumi-resource-testx"))
	os.WriteFile(plugin+".partial", nil, 0o644)
	if r := wantCode(t, dir, []string{"PULUMI_HOME=" + home}, 0, "plugin", "ls", "--json"); strings.TrimSpace(r.Stdout) != "[]" {
		t.Errorf("plugin ls shows an unfinished install: %s", r.Stdout)
	}
	r := wantCode(t, dir, []string{"PULUMI_HOME=" + home}, 0, "plugin", "install", "testx", "1.0.0", "--server", srv.URL)
	if !strings.Contains(r.Stderr, "removing the unfinished install") || !strings.Contains(r.Stdout, "Installed plugin testx 1.0.0") {
		t.Errorf("the redone install said:\n%s%s", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(plugin + ".partial"); !os.IsNotExist(err) {
		t.Errorf("the marker is still there (%v)", err)
	}
}

// TestMissingPluginStopsBeforeAnyChange: the aws provider's plugins are
// missing, so validate and every operation stop with exit 3 naming the
// install commands, before writing anything; `plugin install --provider
// aws` installs them both.
func TestMissingPluginStopsBeforeAnyChange(t *testing.T) {
	dir, home := workspace(t), t.TempDir()
	env := []string{"PULUMI_HOME=" + home, "PULUMI_IGNORE_AMBIENT_PLUGINS=true"}
	cfg := filepath.Join(dir, "config", "pulumi", "Pulumi.dev.yaml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	const config = "config:\n  aws:region: us-east-1\n"
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range [][]string{{"validate"}, {"preview"}, {"up", "--yes"}, {"refresh", "--yes"}, {"destroy", "--yes"}} {
		r := wantCode(t, dir, env, 3, append([]string{"-s", "dev", "-p", "aws", "--non-interactive"}, op...)...)
		for _, want := range []string{"aws 7.48.0, kubernetes 4.34.2", "`runner plugin install --provider aws`", "`runner plugin install kubernetes 4.34.2`"} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("%s does not say %q:\n%s", op[0], want, r.Stderr)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a stopped run wrote into the workspace: %v", entries)
	}
	if entries, _ := os.ReadDir(filepath.Dir(cfg)); len(entries) != 1 {
		t.Errorf("a stopped run wrote config files: %v", entries)
	}
	if b, _ := os.ReadFile(cfg); string(b) != config {
		t.Errorf("a stopped run changed the stack config:\n%s", b)
	}
	srv := newPluginServer(t, "aws@7.48.0", "kubernetes@4.34.2")
	r := wantCode(t, dir, env, 0, "plugin", "install", "--provider", "aws", "--server", srv.URL)
	if !strings.Contains(r.Stdout, "Installed plugin aws 7.48.0") || !strings.Contains(r.Stdout, "Installed plugin kubernetes 4.34.2") {
		t.Errorf("install --provider aws said:\n%s", r.Stdout)
	}
	r = wantCode(t, dir, env, 3, "-s", "dev", "-p", "aws", "--non-interactive", "validate")
	if strings.Contains(r.Stderr, "plugin") || !strings.Contains(r.Stderr, "sirius:") {
		t.Errorf("with the plugins installed, validate should name only missing config:\n%s", r.Stderr)
	}
}
