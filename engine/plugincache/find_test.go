package plugincache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// fakeBinary writes an executable file at path.
func fakeBinary(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// installed lays out a cache entry of plugin name by hand.
func installed(t *testing.T, home, name, version string) string {
	t.Helper()
	bin := filepath.Join(home, "plugins", "resource-"+name+"-v"+version, Binary(name))
	fakeBinary(t, bin)
	return bin
}

func TestFind(t *testing.T) {
	tests := []struct {
		name     string
		cache    []string // versions of plugin x in the cache
		partial  []string // of those, the ones with a .partial marker
		onPath   bool
		ignore   string // PULUMI_IGNORE_AMBIENT_PLUGINS
		version  string
		want     string // "path", a cached version, or "" for not installed
		notFound bool
	}{
		{name: "PATH wins over the cache", cache: []string{"1.0.0"}, onPath: true, version: "1.0.0", want: "path"},
		{name: "PATH wins whatever the version", onPath: true, version: "9.9.9", want: "path"},
		{name: "ignore ambient", cache: []string{"1.0.0"}, onPath: true, ignore: "true", version: "1.0.0", want: "1.0.0"},
		{name: "ignore ambient set to 1", onPath: true, ignore: "1", version: "1.0.0", notFound: true},
		{name: "ignore ambient false keeps PATH", onPath: true, ignore: "false", version: "1.0.0", want: "path"},
		{name: "exact version", cache: []string{"1.0.0", "1.1.0", "2.0.0"}, version: "1.1.0", want: "1.1.0"},
		{name: "exact version with v", cache: []string{"1.0.0", "1.1.0"}, version: "v1.0.0", want: "1.0.0"},
		{name: "exact version is not newer", cache: []string{"1.2.0"}, version: "1.1.0", notFound: true},
		{name: "exact prerelease", cache: []string{"1.0.0", "1.1.0-alpha.1"}, version: "1.1.0-alpha.1", want: "1.1.0-alpha.1"},
		{name: "partial skipped", cache: []string{"1.0.0"}, partial: []string{"1.0.0"}, version: "1.0.0", notFound: true},
		{name: "partial skipped for newest", cache: []string{"1.0.0", "2.0.0"}, partial: []string{"2.0.0"}, want: "1.0.0"},
		{name: "newest without version", cache: []string{"1.9.0", "1.10.0", "1.2.0"}, want: "1.10.0"},
		{name: "newest stable preferred", cache: []string{"1.0.0", "2.0.0-beta.1"}, want: "1.0.0"},
		{name: "newest prerelease when none is stable", cache: []string{"2.0.0-alpha.1", "2.0.0-beta.1"}, want: "2.0.0-beta.1"},
		{name: "nothing", notFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, bin := t.TempDir(), t.TempDir()
			for _, v := range tt.cache {
				installed(t, home, "x", v)
			}
			for _, v := range tt.partial {
				os.WriteFile(filepath.Join(home, "plugins", "resource-x-v"+v+".partial"), nil, 0o644)
			}
			// a decoy: another plugin whose name starts like x's
			installed(t, home, "x-extra", "5.0.0")
			if tt.onPath {
				fakeBinary(t, filepath.Join(bin, "pulumi-resource-x"))
			}
			getenv := env(map[string]string{"PULUMI_HOME": home, "PATH": "/nonexistent" + string(os.PathListSeparator) + bin, "PULUMI_IGNORE_AMBIENT_PLUGINS": tt.ignore})
			got, err := Find("x", tt.version, getenv)
			if tt.notFound {
				var nie *NotInstalledError
				if !errors.As(err, &nie) || nie.Name != "x" {
					t.Fatalf("Find = %q, %v; want a *NotInstalledError", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(bin, "pulumi-resource-x")
			if tt.want != "path" {
				want = filepath.Join(home, "plugins", "resource-x-v"+tt.want, "pulumi-resource-x")
			}
			if got != want {
				t.Errorf("Find = %s, want %s", got, want)
			}
		})
	}
}

func TestFindSkipsDirWithoutBinaryAndBadNames(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "plugins", "resource-x-v1.0.0"), 0o755)
	getenv := env(map[string]string{"PULUMI_HOME": home})
	if _, err := Find("x", "1.0.0", getenv); err == nil {
		t.Fatal("Find accepted a directory without its binary")
	}
	for _, name := range []string{"../x", "x/y", "", "-x"} {
		if _, err := Find(name, "", getenv); err == nil || strings.Contains(err.Error(), "not installed") {
			t.Errorf("Find(%q) = %v, want a bad-name error", name, err)
		}
	}
	if _, err := Find("x", "1.0", getenv); err == nil || !strings.Contains(err.Error(), "semantic version") {
		t.Errorf("Find with a bad version = %v", err)
	}
}

func TestNotInstalledErrorMessage(t *testing.T) {
	home := t.TempDir()
	_, err := Find("aws", "7.48.0", env(map[string]string{"PULUMI_HOME": home}))
	for _, want := range []string{"aws 7.48.0", "pulumi-resource-aws", filepath.Join(home, "plugins"), "`runner plugin install aws 7.48.0`"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %q", err, want)
		}
	}
}

func TestDir(t *testing.T) {
	if d, _ := Dir(env(map[string]string{"PULUMI_HOME": "/p"})); d != "/p/plugins" {
		t.Errorf("Dir with PULUMI_HOME = %s", d)
	}
	if d, _ := Dir(env(map[string]string{"HOME": "/h"})); d != "/h/.pulumi/plugins" {
		t.Errorf("Dir with HOME = %s", d)
	}
}

func TestList(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	installed(t, home, "b", "1.0.0")
	installed(t, home, "b", "1.10.0")
	installed(t, home, "a", "2.0.0")
	installed(t, home, "c", "1.0.0")
	os.WriteFile(filepath.Join(home, "plugins", "resource-c-v1.0.0.partial"), nil, 0o644)
	fakeBinary(t, filepath.Join(bin, "pulumi-resource-b"))
	os.WriteFile(filepath.Join(bin, "pulumi-resource-notexec"), nil, 0o644)
	m := map[string]string{"PULUMI_HOME": home, "PATH": bin}
	got, err := List(env(m))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range got {
		names = append(names, in.Name+"@"+in.Version+map[bool]string{true: "(path)"}[in.Ambient])
		if in.Size == 0 || in.Modified.IsZero() {
			t.Errorf("%+v has no size or time", in)
		}
	}
	if s := strings.Join(names, " "); s != "a@2.0.0 b@(path) b@1.10.0 b@1.0.0" {
		t.Errorf("List = %s", s)
	}
	m["PULUMI_IGNORE_AMBIENT_PLUGINS"] = "1"
	if got, _ := List(env(m)); len(got) != 3 {
		t.Errorf("List ignoring PATH = %+v", got)
	}
}
