package stepgen

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

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
