package pluginhost

import (
	"context"
	"reflect"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/resource"
)

func TestDiffResponse(t *testing.T) {
	req := resource.DiffRequest{OldInputs: resource.PropertyMap{"a": 1.0}, NewInputs: resource.PropertyMap{"a": 2.0}}
	tests := []struct {
		name string
		resp *pulumirpc.DiffResponse
		want resource.DiffResponse
	}{
		{"none", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE, Diffs: []string{"x"}}, resource.DiffResponse{}},
		{"unknown", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_UNKNOWN, Replaces: []string{"r"}},
			resource.DiffResponse{Unknown: true, Replaces: []string{"r"}}},
		{"legacy diffs", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"b", "a"}, Replaces: []string{"c.d"}},
			resource.DiffResponse{Changed: []string{"a", "b", "c"}, Replaces: []string{"c"}}},
		{"detailed", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, HasDetailedDiff: true, DeleteBeforeReplace: true,
			DetailedDiff: map[string]*pulumirpc.PropertyDiff{
				"tags.Name": {Kind: pulumirpc.PropertyDiff_UPDATE, InputDiff: true},
				"rules[0]":  {Kind: pulumirpc.PropertyDiff_ADD_REPLACE},
				`["a.b"].c`: {Kind: pulumirpc.PropertyDiff_Kind(42)},
			}},
			resource.DiffResponse{Changed: []string{"a.b", "rules", "tags"}, Replaces: []string{"rules"}, DeleteBeforeReplace: true,
				Detailed: map[string]resource.PropertyDiff{
					"tags.Name": {Kind: resource.DiffUpdate, InputDiff: true},
					"rules[0]":  {Kind: resource.DiffAddReplace},
					`["a.b"].c`: {Kind: resource.DiffUpdate},
				}}},
		{"detailed not advertised", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"a"},
			DetailedDiff: map[string]*pulumirpc.PropertyDiff{"z": {Kind: pulumirpc.PropertyDiff_UPDATE_REPLACE}}},
			resource.DiffResponse{Changed: []string{"a"}}},
		{"some without keys", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME}, resource.DiffResponse{Changed: []string{"a"}}},
		{"some without keys, inputs equal", &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME}, resource.DiffResponse{ChangedUnnamed: true}},
	}
	for _, tt := range tests {
		req := req
		if strings.HasSuffix(tt.name, "inputs equal") {
			req.NewInputs = req.OldInputs
		}
		if got := diffResponse(tt.resp, req); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestTopKey(t *testing.T) {
	for path, want := range map[string]string{"a": "a", "a.b": "a", "a[0].b": "a", `["a.b"]`: "a.b", `["a.b"].c`: "a.b", `["q\"x"]`: `q"x`} {
		if got := topKey(path); got != want {
			t.Errorf("topKey(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestConfigKey(t *testing.T) {
	base := resource.PropertyMap{"region": "eu", "n": 1.0, "list": []any{"a"}, "__internal": map[string]any{"x": 1.0}}
	same := resource.PropertyMap{"list": []any{"a"}, "n": 1.0, "region": "eu"}
	if configKey(base) != configKey(same) {
		t.Error("equal inputs (__internal aside) give different keys")
	}
	for _, other := range []resource.PropertyMap{
		{"region": "us", "n": 1.0, "list": []any{"a"}},
		{"region": resource.Secret{Element: "eu"}, "n": 1.0, "list": []any{"a"}},
		{"region": "eu", "n": "1", "list": []any{"a"}},
		{"region": "eu", "n": 1.0, "list": []any{"a", "b"}},
		{"regio": "neu", "n": 1.0, "list": []any{"a"}},
	} {
		if configKey(other) == configKey(base) {
			t.Errorf("%v and %v share a key", other, base)
		}
	}
}

func TestSecretsStrippedAndRemarked(t *testing.T) {
	e := newEnv(t, "modern") // the fake does not accept secrets
	p := e.configure(t, resource.PropertyMap{})
	ins := resource.PropertyMap{"pw": resource.Secret{Element: "hunter2"}, "nested": map[string]any{"k": resource.Secret{Element: "v"}, "open": "o"}}
	got, err := p.Create(context.Background(), resource.CreateRequest{URN: thing, Inputs: ins})
	if err != nil {
		t.Fatal(err)
	}
	if sent := e.calls("Create")[0].Data["props"].(map[string]any); sent["pw"] != "hunter2" {
		t.Errorf("Create sent %v: secrets go plain to a plugin that does not accept them", sent)
	}
	if got.Outputs["pw"] != (resource.Secret{Element: "hunter2"}) || !resource.ContainsSecret(got.Outputs["nested"]) || got.Outputs["out"] != "made" {
		t.Errorf("outputs %v: the secret inputs' keys must be secret again", got.Outputs)
	}
}
