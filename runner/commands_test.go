package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/term"
)

func commandOptions(t *testing.T, asJSON bool, provider string) (Options, *bytes.Buffer) {
	t.Helper()
	out := &bytes.Buffer{}
	local := &providers.Provider{Name: DefaultProvider, Description: "the default", Projects: []providers.Project{{Name: "one"}}}
	aws := &providers.Provider{Name: "aws", Description: "not yet", Projects: []providers.Project{{Name: "vpc"}, {Name: "eks", DependsOn: []string{"vpc"}}}}
	return Options{Root: t.TempDir(), Provider: provider, JSON: asJSON, Providers: mustRegistry(t, local, aws),
		IO: &term.IO{In: strings.NewReader(""), Out: out, Err: &bytes.Buffer{}, NoColor: true}}, out
}

func TestListProviders(t *testing.T) {
	tests := []struct {
		name string
		json bool
		want string
	}{
		{"table", false, "NAME             PROJECTS  DESCRIPTION\naws              2         not yet\nlocal (default)  1         the default\n"},
		{"json", true, `"name": "aws",
    "description": "not yet",
    "projects": 2,
    "default": false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, out := commandOptions(t, tt.json, "")
			if err := ListProviders(opts); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Fatalf("output:\n%s\nwant it to hold:\n%s", out, tt.want)
			}
		})
	}
}

func TestShowOrder(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		json     bool
		format   string
		want     string
		usage    bool
	}{
		{"tree by default", "aws", false, "", "eks", false},
		{"json with --json", "aws", true, "", `"eks"`, false},
		{"dot asked for, even with --json", "aws", true, "dot", "digraph", false},
		{"unknown format", "aws", false, "png", "", true},
		{"unknown provider", "gcp", false, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, out := commandOptions(t, tt.json, tt.provider)
			err := ShowOrder(opts, ShowOptions{Format: tt.format})
			if tt.usage {
				if !IsUsage(err) {
					t.Fatalf("error %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Fatalf("output:\n%s\nwant it to hold %q", out, tt.want)
			}
		})
	}
}

func TestValidateConfigPrintsTheReport(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		opts, out := configWorkspace(t, true)
		opts.JSON = asJSON
		opts.Providers = mustRegistry(t, graphProvider())
		opts.Provider = "fake"
		if err := ValidateConfig(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		want := "take their defaults; the first `runner up` saves them to "
		if asJSON {
			want = `"defaulted":["fake:size"]`
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("json=%v: output %s, want %q", asJSON, out, want)
		}
	}
}

// mustRegistry builds a provider registry whose default is the first.
func mustRegistry(t *testing.T, ps ...*providers.Provider) *providers.Registry {
	t.Helper()
	r, err := providers.NewRegistry(ps[0].Name, ps...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
