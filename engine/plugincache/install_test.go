package plugincache

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tarEntry is one entry of a test archive.
type tarEntry struct {
	name, body string
	mode       int64
	typ        byte
}

// tarball returns a gzip tar of entries.
func tarball(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: typ}
		if typ != tar.TypeReg {
			hdr.Size = 0
			hdr.Linkname = e.body
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// pluginTarball is a plugin archive in Pulumi's layout: the binary at the
// root (here without its execute bit, which Install sets) and LICENSE.
func pluginTarball(t testing.TB, name, body string) []byte {
	return tarball(t, tarEntry{name: "pulumi-resource-" + name, body: body, mode: 0o644},
		tarEntry{name: "LICENSE", body: "Apache 2.0", mode: 0o644}, tarEntry{name: "README.md", body: "readme", mode: 0o644})
}

// server serves files by path, counting requests to each.
type server struct {
	*httptest.Server
	files map[string][]byte
	hits  sync.Map     // path -> *atomic.Int32
	delay atomic.Int64 // nanoseconds to wait before a body
	auth  atomic.Value // the last Authorization header
}

func newServer(t *testing.T, files map[string][]byte) *server {
	s := &server{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	n, _ := s.hits.LoadOrStore(r.URL.Path, new(atomic.Int32))
	n.(*atomic.Int32).Add(1)
	s.auth.Store(r.Header.Get("Authorization"))
	body, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	time.Sleep(time.Duration(s.delay.Load()))
	w.Write(body)
}

func (s *server) count(path string) int {
	if n, ok := s.hits.Load(path); ok {
		return int(n.(*atomic.Int32).Load())
	}
	return 0
}

const asset = "pulumi-resource-testx-v1.0.0-linux-amd64.tar.gz"

// opts installs into home from srv's /dl folder.
func opts(home string, srv *server) InstallOptions {
	return InstallOptions{Client: srv.Client(), Sources: []string{srv.URL + "/dl"}, GOOS: "linux", GOARCH: "amd64",
		Getenv: env(map[string]string{"PULUMI_HOME": home})}
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// checkInstalled checks the layout of testx 1.0.0 in home.
func checkInstalled(t *testing.T, home, body string) {
	t.Helper()
	dir := filepath.Join(home, "plugins", "resource-testx-v1.0.0")
	got, err := os.ReadFile(filepath.Join(dir, "pulumi-resource-testx"))
	if err != nil || string(got) != body {
		t.Fatalf("the binary holds %q (%v), want %q", got, err, body)
	}
	if st, _ := os.Stat(filepath.Join(dir, "pulumi-resource-testx")); st.Mode().Perm()&0o111 == 0 {
		t.Errorf("the binary is not executable: %v", st.Mode())
	}
	if _, err := os.Stat(filepath.Join(dir, "LICENSE")); err != nil {
		t.Errorf("LICENSE missing: %v", err)
	}
	if _, err := os.Stat(dir + ".partial"); !os.IsNotExist(err) {
		t.Errorf("the .partial marker is still there (%v)", err)
	}
	if p, err := Find("testx", "1.0.0", env(map[string]string{"PULUMI_HOME": home})); err != nil || p != filepath.Join(dir, "pulumi-resource-testx") {
		t.Errorf("Find after install = %s, %v", p, err)
	}
}

func TestInstall(t *testing.T) {
	ball := pluginTarball(t, "testx", "v1-binary")
	srv := newServer(t, map[string][]byte{"/dl/" + asset: ball})
	home := t.TempDir()
	var lines []string
	o := opts(home, srv)
	o.Progress = func(m string) { lines = append(lines, m) }
	in, err := Install(context.Background(), Spec{Name: "testx", Version: "v1.0.0", Checksums: map[string]string{"linux-amd64": sum(ball), "darwin-arm64": "00"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, home, "v1-binary")
	if in.AlreadyInstalled || in.Version != "1.0.0" || in.Size == 0 {
		t.Errorf("Install = %+v", in)
	}
	again, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, o)
	if err != nil || !again.AlreadyInstalled {
		t.Fatalf("second Install = %+v, %v; want already installed", again, err)
	}
	if n := srv.count("/dl/" + asset); n != 1 {
		t.Errorf("downloaded %d times, want 1", n)
	}
	if !strings.Contains(lines[len(lines)-1], "already installed") {
		t.Errorf("progress does not say it was installed already: %q", lines)
	}
	leftovers, _ := filepath.Glob(filepath.Join(home, "plugins", ".download-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestInstallChecksumMismatchInstallsNothing(t *testing.T) {
	ball := pluginTarball(t, "testx", "tampered")
	srv := newServer(t, map[string][]byte{"/dl/" + asset: ball})
	home := t.TempDir()
	o := opts(home, srv)
	o.Sources = append(o.Sources, srv.URL+"/second")
	_, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0", Checksums: map[string]string{"linux-amd64": strings.Repeat("ab", 32)}}, o)
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "nothing was installed") {
		t.Fatalf("Install = %v, want a *ChecksumError", err)
	}
	entries, _ := os.ReadDir(filepath.Join(home, "plugins"))
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left in the cache: %s", e.Name())
		}
	}
	if srv.count("/second/"+asset) != 0 {
		t.Error("a mismatch went on to the next source")
	}
}

func TestInstallFallsBackOn404(t *testing.T) {
	ball := pluginTarball(t, "testx", "from-second")
	srv := newServer(t, map[string][]byte{"/two/testx/1.0.0/linux/amd64.tgz": ball})
	home := t.TempDir()
	o := opts(home, srv)
	o.Sources = []string{srv.URL + "/one", srv.URL + "/two/${NAME}/${VERSION}/${OS}/${ARCH}.tgz"}
	if _, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, o); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, home, "from-second")
	if srv.count("/one/"+asset) != 1 {
		t.Error("the first source was not tried")
	}
	// Every source failing names each.
	o.Sources = []string{srv.URL + "/a", srv.URL + "/b"}
	_, err := Install(context.Background(), Spec{Name: "testx", Version: "2.0.0"}, o)
	if err == nil || !strings.Contains(err.Error(), "/a/pulumi-resource-testx-v2.0.0") || !strings.Contains(err.Error(), "/b/") || !strings.Contains(err.Error(), "404") {
		t.Errorf("Install from no source = %v", err)
	}
}

func TestInstallRedoesKilledInstall(t *testing.T) {
	ball := pluginTarball(t, "testx", "good")
	srv := newServer(t, map[string][]byte{"/dl/" + asset: ball})
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "resource-testx-v1.0.0")
	// What a killed install leaves: the marker and half a directory.
	fakeBinary(t, filepath.Join(dir, "pulumi-resource-testx"))
	os.WriteFile(filepath.Join(dir, "junk"), []byte("half"), 0o644)
	os.WriteFile(dir+".partial", nil, 0o644)
	if _, err := Find("testx", "1.0.0", env(map[string]string{"PULUMI_HOME": home})); err == nil {
		t.Fatal("Find used a directory with a .partial marker")
	}
	in, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, opts(home, srv))
	if err != nil || in.AlreadyInstalled {
		t.Fatalf("Install = %+v, %v", in, err)
	}
	checkInstalled(t, home, "good")
	if _, err := os.Stat(filepath.Join(dir, "junk")); !os.IsNotExist(err) {
		t.Error("the killed install's files were kept")
	}
}

func TestInstallRefusesBadArchives(t *testing.T) {
	tests := []struct {
		name    string
		entries []tarEntry
		want    string
	}{
		{"dot-dot", []tarEntry{{name: "pulumi-resource-testx", body: "b"}, {name: "../escaped", body: "x"}}, "path traversal"},
		{"nested dot-dot", []tarEntry{{name: "a/../../escaped", body: "x"}}, "path traversal"},
		{"absolute", []tarEntry{{name: "/tmp/escaped", body: "x"}}, "absolute path"},
		{"symlink", []tarEntry{{name: "pulumi-resource-testx", body: "/etc/passwd", typ: tar.TypeSymlink}}, "not a file or a directory"},
		{"no binary", []tarEntry{{name: "LICENSE", body: "x"}}, "no pulumi-resource-testx at its root"},
		{"binary in a folder", []tarEntry{{name: "bin/pulumi-resource-testx", body: "x"}}, "no pulumi-resource-testx at its root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, map[string][]byte{"/dl/" + asset: tarball(t, tt.entries...)})
			root := t.TempDir()
			home := filepath.Join(root, "home")
			_, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, opts(home, srv))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Install = %v, want %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(root, "escaped")); !os.IsNotExist(err) {
				t.Error("a file was written outside the plugin directory")
			}
			if _, err := os.Stat(filepath.Join(home, "plugins", "resource-testx-v1.0.0")); !os.IsNotExist(err) {
				t.Error("a refused archive left its directory")
			}
			if _, err := os.Stat(filepath.Join(home, "plugins", "resource-testx-v1.0.0.partial")); !os.IsNotExist(err) {
				t.Error("a refused archive left its .partial marker")
			}
		})
	}
}

func TestInstallConcurrentGoroutines(t *testing.T) {
	ball := pluginTarball(t, "testx", "one-copy")
	srv := newServer(t, map[string][]byte{"/dl/" + asset: ball})
	srv.delay.Store(int64(100 * time.Millisecond))
	home := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, opts(home, srv))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkInstalled(t, home, "one-copy")
	if n := srv.count("/dl/" + asset); n != 1 {
		t.Errorf("downloaded %d times, want 1", n)
	}
}

// TestInstallHelperProcess is the body of the processes of
// TestInstallConcurrentProcesses (it does nothing in a normal run).
func TestInstallHelperProcess(t *testing.T) {
	if os.Getenv("PLUGINCACHE_HELPER") != "1" {
		t.Skip("run by TestInstallConcurrentProcesses")
	}
	o := InstallOptions{Sources: []string{os.Getenv("PLUGINCACHE_SERVER")}, GOOS: "linux", GOARCH: "amd64"}
	if _, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func TestInstallConcurrentProcesses(t *testing.T) {
	ball := pluginTarball(t, "testx", "one-copy")
	srv := newServer(t, map[string][]byte{"/dl/" + asset: ball})
	srv.delay.Store(int64(300 * time.Millisecond))
	home := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestInstallHelperProcess$")
		cmd.Env = append(os.Environ(), "PLUGINCACHE_HELPER=1", "PLUGINCACHE_SERVER="+srv.URL+"/dl", "PULUMI_HOME="+home)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("install process %d: %v\n%s", i, err, outs[i])
		}
	}
	checkInstalled(t, home, "one-copy")
	if n := srv.count("/dl/" + asset); n != 1 {
		t.Errorf("downloaded %d times by two processes, want 1", n)
	}
}

func TestInstallWaitsForLockUntilCancelled(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "resource-testx-v1.0.0")
	os.MkdirAll(filepath.Dir(dir), 0o755)
	unlock, err := lock(context.Background(), dir, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	srv := newServer(t, nil)
	_, err = Install(ctx, Spec{Name: "testx", Version: "1.0.0"}, opts(home, srv))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), ".lock") {
		t.Fatalf("Install while locked = %v", err)
	}
}
