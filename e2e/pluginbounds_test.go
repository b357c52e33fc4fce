package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archiveOf is a gzip tar of entries; an entry whose size is over its
// body's length is written as a header only (the archive is cut there).
func archiveOf(t *testing.T, entries []tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		h.Typeflag, h.Mode = tar.TypeReg, 0o644
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
	}
	tw.Flush() // a header-only entry fails here: the archive is cut, as intended
	gz.Close()
	return buf.Bytes()
}

// TestPluginInstallBoundsAndChecks: a 7 MB archive unpacked to 1.5 GB with
// no download limit. Now the download (1 GiB), one file (1 GiB) and the
// entries (10,000) are bounded, plain http:// to another machine is
// refused unless --insecure-http (at the start and at each redirect), and
// --checksum must match; each refusal is exit 3 and installs nothing.
func TestPluginInstallBoundsAndChecks(t *testing.T) {
	dir, home := workspace(t), t.TempDir()
	env := []string{"PULUMI_HOME=" + home, "PULUMI_IGNORE_AMBIENT_PLUGINS=true"}
	asset := assetName("testx", "1.0.0")
	good := pluginArchive(t, "testx")
	many := make([]tar.Header, 10001)
	for i := range many {
		many[i] = tar.Header{Name: fmt.Sprintf("f%d", i)}
	}
	bodies := map[string][]byte{
		"good":  good,
		"bomb":  archiveOf(t, []tar.Header{{Name: "pulumi-resource-testx", Size: 1<<30 + 1}}),
		"many":  archiveOf(t, many),
		"large": good, // served with a Content-Length over the limit
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch {
		case name != asset:
			http.NotFound(w, r)
		case mode == "redirect":
			http.Redirect(w, r, "http://plugins.example.invalid/"+asset, http.StatusFound)
		case mode == "large":
			w.Header().Set("Content-Length", fmt.Sprint(1<<30+1))
			w.Write(bodies[mode])
		default:
			w.Write(bodies[mode])
		}
	}))
	defer srv.Close()
	sum := sha256.Sum256(good)
	wrong := strings.Repeat("0", 64)
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"a file over 1 GiB", []string{"--server", srv.URL + "/bomb"}, []string{"1 GiB for one file"}},
		{"over 10000 entries", []string{"--server", srv.URL + "/many"}, []string{"10000 entries"}},
		{"a download over 1 GiB", []string{"--server", srv.URL + "/large"}, []string{"1 GiB"}},
		{"plain http to another machine", []string{"--server", "http://plugins.example.invalid/"}, []string{"plain http://", "--insecure-http"}},
		{"a redirect to plain http", []string{"--server", srv.URL + "/redirect"}, []string{"redirect", "http://plugins.example.invalid/", "--insecure-http"}},
		{"a checksum that differs", []string{"--server", srv.URL + "/good", "--checksum", wrong}, []string{"SHA-256", hex.EncodeToString(sum[:]), wrong}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wantCode(t, dir, env, 3, append([]string{"plugin", "install", "testx", "1.0.0"}, tc.args...)...)
			for _, w := range tc.wants {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("the refusal does not say %q:\n%s", w, r.Stderr)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(home, "plugins")); len(entries) > 1 { // the lock file only
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("a refused install left %v in the cache", names)
			}
		})
	}
	wantCode(t, dir, env, 0, "plugin", "install", "testx", "1.0.0", "--server", srv.URL+"/good", "--checksum", "sha256:"+hex.EncodeToString(sum[:]))
	if _, err := os.Stat(filepath.Join(home, "plugins", "resource-testx-v1.0.0", "pulumi-resource-testx")); err != nil {
		t.Errorf("the install with the right checksum: %v", err)
	}
}
