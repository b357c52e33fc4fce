package plugincache

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSources(t *testing.T) {
	const a = "pulumi-resource-aws-v7.48.0-linux-arm64.tar.gz"
	tests := []struct {
		name   string
		server string
		over   []string
		want   []string
		err    string
	}{
		{name: "Pulumi's defaults", want: []string{
			"https://github.com/pulumi/pulumi-aws/releases/download/v7.48.0/" + a,
			"https://api.github.com/repos/pulumi/pulumi-aws/releases/tags/v7.48.0",
			"https://get.pulumi.com/releases/plugins/" + a}},
		{name: "server folder", server: "https://mirror.example/plugins/", want: []string{"https://mirror.example/plugins/" + a}},
		{name: "server placeholders", server: "http://m.example/${NAME}/v${VERSION}/${OS}-${ARCH}.tgz", want: []string{"http://m.example/aws/v7.48.0/linux-arm64.tgz"}},
		{name: "github org", server: "github://api.github.com/acme", want: []string{"https://api.github.com/repos/acme/pulumi-aws/releases/tags/v7.48.0"}},
		{name: "github org and repo", server: "github://ghe.example/acme/aws-fork", want: []string{"https://ghe.example/repos/acme/aws-fork/releases/tags/v7.48.0"}},
		{name: "override wins over server", server: "https://mirror.example", over: []string{"http://a", "http://b"}, want: []string{"http://a/" + a, "http://b/" + a}},
		{name: "unsupported scheme", server: "ftp://x", err: "not supported"},
		{name: "github without org", server: "github://api.github.com", err: "github://<host>/<org>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sources(Spec{Name: "aws", Version: "v7.48.0", Server: tt.server}, tt.over, "linux", "arm64")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("sources = %v, want error %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, s := range got {
				urls = append(urls, s.String())
			}
			if strings.Join(urls, " ") != strings.Join(tt.want, " ") {
				t.Errorf("sources =\n%s\nwant\n%s", strings.Join(urls, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestInstallFromGitHubAPI installs through a github:// source (a fake
// GitHub API over TLS): the release is read, its asset fetched as an
// octet stream, with GITHUB_TOKEN, dropped once the server refuses it.
func TestInstallFromGitHubAPI(t *testing.T) {
	ball := pluginTarball(t, "testx", "from-api")
	var srv *httptest.Server
	var auths []string
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auths = append(auths, r.URL.Path+" "+r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/repos/acme/pulumi-testx/releases/tags/v1.0.0":
			json.NewEncoder(w).Encode(map[string]any{"assets": []map[string]string{
				{"name": "other.tar.gz", "url": srv.URL + "/assets/1"},
				{"name": asset, "url": srv.URL + "/assets/2"}}})
		case "/assets/2":
			if r.Header.Get("Accept") != "application/octet-stream" {
				http.Error(w, "json", http.StatusBadRequest)
				return
			}
			if r.Header.Get("Authorization") != "" {
				http.Error(w, "bad credentials", http.StatusUnauthorized)
				return
			}
			w.Write(ball)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	home := t.TempDir()
	o := InstallOptions{Client: srv.Client(), GOOS: "linux", GOARCH: "amd64",
		Getenv: env(map[string]string{"PULUMI_HOME": home, "GITHUB_TOKEN": "tok"})}
	host := strings.TrimPrefix(srv.URL, "https://")
	if _, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0", Server: "github://" + host + "/acme"}, o); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, home, "from-api")
	want := []string{"/repos/acme/pulumi-testx/releases/tags/v1.0.0 token tok", "/assets/2 token tok", "/assets/2 "}
	if strings.Join(auths, "|") != strings.Join(want, "|") {
		t.Errorf("requests = %q, want %q", auths, want)
	}
}

func TestTokenOnlyToGitHub(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		w.Write(pluginTarball(t, "testx", "b"))
	}))
	defer srv.Close()
	o := InstallOptions{Client: srv.Client(), Sources: []string{srv.URL}, GOOS: "linux", GOARCH: "amd64",
		Getenv: env(map[string]string{"PULUMI_HOME": t.TempDir(), "GITHUB_TOKEN": "tok"})}
	if _, err := Install(context.Background(), Spec{Name: "testx", Version: "1.0.0"}, o); err != nil {
		t.Fatal(err)
	}
	if got != "" {
		t.Errorf("the token went to a mirror: %q", got)
	}
}

func TestLatest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/repos/pulumi/pulumi-aws/releases/latest" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"tag_name":"v7.48.0"}`))
	}))
	defer srv.Close()
	o := InstallOptions{Client: srv.Client(), APIBase: srv.URL}
	if v, err := Latest(context.Background(), "aws", o); err != nil || v != "7.48.0" {
		t.Errorf("Latest = %q, %v", v, err)
	}
	if _, err := Latest(context.Background(), "nope", o); err == nil || !strings.Contains(err.Error(), "name the version") {
		t.Errorf("Latest of an unknown plugin = %v", err)
	}
}

func TestRemove(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	installed(t, home, "x", "1.0.0")
	installed(t, home, "x", "2.0.0")
	installed(t, home, "x", "3.0.0")
	installed(t, home, "x-extra", "1.0.0")
	os.WriteFile(filepath.Join(home, "plugins", "resource-x-v3.0.0.partial"), nil, 0o644)
	fakeBinary(t, filepath.Join(bin, "pulumi-resource-x"))
	getenv := env(map[string]string{"PULUMI_HOME": home, "PATH": bin})

	got, err := Remove("x", "v2.0.0", getenv)
	if err != nil || len(got) != 1 || got[0].Version != "2.0.0" {
		t.Fatalf("Remove x 2.0.0 = %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "resource-x-v2.0.0")); !os.IsNotExist(err) {
		t.Error("2.0.0 is still there")
	}
	if got, err := Remove("x", "2.0.0", getenv); err != nil || len(got) != 0 {
		t.Errorf("removing it again = %+v, %v", got, err)
	}
	got, err = Remove("x", "", getenv)
	if err != nil || len(got) != 2 {
		t.Fatalf("Remove x (all) = %+v, %v", got, err)
	}
	left, _ := os.ReadDir(filepath.Join(home, "plugins"))
	for _, e := range left {
		if !strings.HasSuffix(e.Name(), ".lock") && e.Name() != "resource-x-extra-v1.0.0" {
			t.Errorf("left in the cache: %s", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(bin, "pulumi-resource-x")); err != nil {
		t.Error("the binary on PATH was removed")
	}
}
