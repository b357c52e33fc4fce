package stepgen

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestDefaultProviderName(t *testing.T) {
	tests := []struct {
		version, want string
		fails         bool
	}{
		{"", "default", false},
		{"1.2.3", "default_1_2_3", false},
		{"v4.18.0", "default_4_18_0", false},
		{"1.2.3-alpha.1", "default_1_2_3_alpha_1", false},
		{"1.2.3-beta+build.7", "default_1_2_3_beta_build_7", false},
		{"1.2", "default_1_2_0", false},
		{"1.x.3", "", true},
		{"1.2.3.4", "", true},
		{"1.2.3-", "", true},
	}
	for _, tt := range tests {
		got, err := DefaultProviderName(tt.version)
		if (err != nil) != tt.fails || got != tt.want {
			t.Errorf("DefaultProviderName(%q) = %q, %v; want %q (fails %v)", tt.version, got, err, tt.want, tt.fails)
		}
	}
}

func TestProviderInputs(t *testing.T) {
	config := map[string]any{
		"aws:region":         "eu-west-1",
		"aws:maxRetries":     float64(3),
		"aws:tags":           map[string]any{"team": "a"},
		"aws:secretKey":      resource.Secret{Element: "k3y"},
		"aws:assumeRole":     resource.Secret{Element: map[string]any{"arn": "x"}},
		"aws:config:profile": "dev",
		"aws:pending":        resource.Computed{},
		"proj:other":         "no",
		"awsx:region":        "no",
	}
	got, err := ProviderInputs(config, "aws", "6.0.0")
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{
		"region": "eu-west-1", "maxRetries": "3", "tags": `{"team":"a"}`,
		"secretKey": resource.Secret{Element: "k3y"}, "assumeRole": resource.Secret{Element: `{"arn":"x"}`},
		"profile": "dev", "pending": resource.Computed{}, "version": "6.0.0",
	}
	if len(got) != len(want) {
		t.Fatalf("inputs %v, want %v", got, want)
	}
	for k, w := range want {
		g := got[k]
		if _, unknown := w.(resource.Computed); unknown {
			if _, ok := g.(resource.Computed); !ok {
				t.Errorf("%s = %#v, want unknown", k, g)
			}
			continue
		}
		if !resource.DeepEqual(g, w) {
			t.Errorf("%s = %#v, want %#v", k, g, w)
		}
	}
	if got, _ := ProviderInputs(config, "gcp", ""); len(got) != 0 {
		t.Errorf("no gcp config and no version: inputs %v", got)
	}
}
