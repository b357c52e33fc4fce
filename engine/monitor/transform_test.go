package monitor

import (
	"slices"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestTransformOptionsRoundTrip: what a transform is given of a
// registration, given back unchanged, leaves the registration as it was.
func TestTransformOptionsRoundTrip(t *testing.T) {
	yes := true
	req := &pulumirpc.RegisterResourceRequest{
		Type: "test:index:Thing", Name: "a", Parent: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", Custom: true,
		Object: &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(1)}}, Protect: &yes,
		Dependencies: []string{"urn:b", "urn:c"}, Provider: "urn:prov::id", Version: "1.2.3", PluginDownloadURL: "https://x",
		IgnoreChanges: []string{"x"}, ReplaceOnChanges: []string{"y"}, AliasURNs: []string{"urn:old"},
		PropertyDependencies: map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{"n": {Urns: []string{"urn:c"}}},
		DeleteBeforeReplace:  true, DeleteBeforeReplaceDefined: true, AdditionalSecretOutputs: []string{"s"},
		ImportId: "i-1", RetainOnDelete: &yes, DeletedWith: "urn:d", HideDiffs: []string{"h"},
		CustomTimeouts: &pulumirpc.RegisterResourceRequest_CustomTimeouts{Create: "5m"},
	}
	got := proto.Clone(req).(*pulumirpc.RegisterResourceRequest)
	applyTransform(got, got.GetObject(), transformOptions(got))
	if !proto.Equal(got, req) {
		t.Errorf("after an unchanging transform:\n%v\nwant\n%v", got, req)
	}
}

// TestApplyTransform: a transform's options replace the registration's;
// a property it removed loses its dependencies, those of the properties
// kept still count; URN aliases and alias specs are told apart.
func TestApplyTransform(t *testing.T) {
	req := &pulumirpc.RegisterResourceRequest{Type: "test:index:Thing", Name: "a", Custom: true,
		Dependencies: []string{"urn:a", "urn:b"},
		PropertyDependencies: map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{
			"gone": {Urns: []string{"urn:a"}}, "kept": {Urns: []string{"urn:b"}}},
	}
	no := false
	spec := &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: &pulumirpc.Alias_Spec{Name: "old"}}}
	props := &structpb.Struct{Fields: map[string]*structpb.Value{"kept": structpb.NewStringValue("v")}}
	applyTransform(req, props, &pulumirpc.TransformResourceOptions{DependsOn: []string{"urn:z"}, Protect: &no,
		Aliases: []*pulumirpc.Alias{{Alias: &pulumirpc.Alias_Urn{Urn: "urn:old"}}, spec}})
	if !slices.Equal(req.GetDependencies(), []string{"urn:z", "urn:b"}) {
		t.Errorf("dependencies %v, want urn:z (the transform's) and urn:b (kept's)", req.GetDependencies())
	}
	if _, ok := req.GetPropertyDependencies()["gone"]; ok || len(req.GetPropertyDependencies()) != 1 {
		t.Errorf("property dependencies %v, want kept's only", req.GetPropertyDependencies())
	}
	if req.Protect == nil || *req.Protect || req.GetDeleteBeforeReplaceDefined() {
		t.Errorf("protect %v, deleteBeforeReplaceDefined %v", req.Protect, req.GetDeleteBeforeReplaceDefined())
	}
	if !slices.Equal(req.GetAliasURNs(), []string{"urn:old"}) || len(req.GetAliases()) != 1 || req.GetAliases()[0] != spec {
		t.Errorf("aliases %v and %v", req.GetAliasURNs(), req.GetAliases())
	}
}

// TestCallbackConnectionReused: callbacks of one target share one
// connection, kept for the run and closed with it; a callback without a
// target, or named once the run has ended, is refused.
func TestCallbackConnectionReused(t *testing.T) {
	var tf transforms
	for _, token := range []string{"a", "b"} {
		if _, err := tf.callback(&pulumirpc.Callback{Target: "127.0.0.1:1", Token: token}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tf.callback(&pulumirpc.Callback{Target: "127.0.0.1:2", Token: "c"}); err != nil {
		t.Fatal(err)
	}
	if len(tf.conns) != 2 {
		t.Errorf("%d connections for two targets", len(tf.conns))
	}
	if _, err := tf.callback(&pulumirpc.Callback{Token: "d"}); err == nil {
		t.Error("a callback without a target was accepted")
	}
	tf.close()
	if _, err := tf.callback(&pulumirpc.Callback{Target: "127.0.0.1:1", Token: "e"}); err == nil || len(tf.conns) != 0 {
		t.Errorf("after the run: %v, %d connections", err, len(tf.conns))
	}
}

// TestUnserved: an SDK's refusal of a feature runner does not serve says
// runner does not support it; other messages are left alone.
func TestUnserved(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Error: The Pulumi CLI does not support resource hooks. Please update the Pulumi CLI",
			"Error: runner does not support resource hooks yet (the Pulumi SDK's message names the Pulumi CLI, which runner replaces; updating it does not help)"},
		{"error: the Pulumi CLI does not support the ReplaceWith option. Please update the Pulumi CLI.\n    at x",
			"error: runner does not support the ReplaceWith option yet (the Pulumi SDK's message names the Pulumi CLI, which runner replaces; updating it does not help)\n    at x"},
		{"this thing does not support that", "this thing does not support that"},
		{"created thing-1", "created thing-1"},
	} {
		if got := Unserved(tc.in); got != tc.want {
			t.Errorf("Unserved(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
