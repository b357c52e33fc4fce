package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/plugincache"
	"github.com/runnerhq/runner/providers"
)

func TestCheckPlugins(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "plugins", "resource-a-v1.0.0", "pulumi-resource-a")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	getenv := func(k string) string {
		return map[string]string{"PULUMI_HOME": home, "PULUMI_IGNORE_AMBIENT_PLUGINS": "1"}[k]
	}
	tests := []struct {
		name    string
		plugins []providers.PluginSpec
		want    []string // missing, as name version
	}{
		{"none declared", nil, nil},
		{"installed", []providers.PluginSpec{{Name: "a", Version: "1.0.0"}}, nil},
		{"other version", []providers.PluginSpec{{Name: "a", Version: "1.0.1"}}, []string{"a 1.0.1"}},
		{"two missing", []providers.PluginSpec{{Name: "a", Version: "1.0.0"}, {Name: "b", Version: "2.0.0"}, {Name: "c", Version: "3.0.0-rc.1"}}, []string{"b 2.0.0", "c 3.0.0-rc.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPlugins(&providers.Provider{Name: "p", Plugins: tt.plugins}, getenv)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var mp *MissingPluginsError
			var nie *plugincache.NotInstalledError
			if !IsValidation(err) || !errors.As(err, &mp) || !errors.As(err, &nie) {
				t.Fatalf("checkPlugins = %v, want a validation error with the plugins", err)
			}
			var got []string
			for _, m := range mp.Missing {
				got = append(got, m.Name+" "+m.Version)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("missing = %v, want %v", got, tt.want)
			}
			for _, want := range append(tt.want, "`runner plugin install --provider p`", "nothing was changed", filepath.Join(home, "plugins")) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 300 << 20: "300.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %s, want %s", n, got, want)
		}
	}
}
