package plugincache

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallLimits: each limit refuses the install with a *LimitError and
// leaves nothing in the cache; a body sent without a length is cut at the
// download limit.
func TestInstallLimits(t *testing.T) {
	ball := pluginTarball(t, "testx", strings.Repeat("b", 600))
	for _, tc := range []struct {
		name string
		lim  Limits
		want string
	}{
		{"download", Limits{Download: int64(len(ball)) - 1}, "the download of"},
		{"one file", Limits{File: 599}, "for one file"},
		{"unpacked in all", Limits{Unpacked: 610}, "in all"},
		{"entries", Limits{Entries: 2}, "2 entries"},
		{"at the limits", Limits{Download: int64(len(ball)), File: 600, Unpacked: 600 + 10 + 6, Entries: 3}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Transfer-Encoding", "chunked") // no Content-Length
				w.Write(ball)
			}))
			defer srv.Close()
			o := InstallOptions{Client: srv.Client(), Sources: []string{srv.URL + "/dl"}, GOOS: "linux", GOARCH: "amd64",
				Getenv: env(map[string]string{"PULUMI_HOME": home}), Limits: tc.lim}
			_, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, o)
			var lim *LimitError
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Install at the limits: %v", err)
				}
				return
			}
			if !errors.As(err, &lim) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Install = %v, want a *LimitError saying %q", err, tc.want)
			}
			entries, _ := os.ReadDir(filepath.Join(home, "plugins"))
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), ".lock") {
					t.Errorf("the refused install left %s", e.Name())
				}
			}
		})
	}
}

func TestCheckScheme(t *testing.T) {
	for _, tc := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://example.com/a", false, true},
		{"http://127.0.0.1:8080/a", false, true},
		{"http://[::1]/a", false, true},
		{"http://localhost/a", false, true},
		{"http://example.com/a", false, false},
		{"http://10.0.0.1/a", false, false},
		{"http://example.com/a", true, true},
		{"ftp://example.com/a", true, false},
	} {
		u, _ := url.Parse(tc.url)
		if err := checkScheme(u, tc.insecure, false); (err == nil) != tc.ok {
			t.Errorf("checkScheme(%s, insecure %v) = %v, want ok %v", tc.url, tc.insecure, err, tc.ok)
		}
	}
}
