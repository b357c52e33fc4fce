package providertest_test

import (
	"context"
	"slices"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

func TestHandshakeFlags(t *testing.T) {
	tests := []struct {
		name                  string
		env                   []string
		wantCode              codes.Code // of Handshake
		wantSecrets, wantRefs bool       // in Handshake's answer, else Configure's
	}{
		{"defaults", nil, codes.OK, true, true},
		{"no secrets", []string{providertest.EnvAcceptSecrets + "=false"}, codes.OK, false, true},
		{"no resources", []string{providertest.EnvAcceptResources + "=false"}, codes.OK, true, false},
		{"legacy", []string{providertest.EnvLegacy + "=1"}, codes.Unimplemented, true, true},
		{"legacy no secrets", []string{providertest.EnvLegacy + "=1", providertest.EnvAcceptSecrets + "=false",
			providertest.EnvAcceptResources + "=false"}, codes.Unimplemented, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := start(t, "", tt.env...)
			ctx := context.Background()
			hs, err := r.client.Handshake(ctx, &pulumirpc.ProviderHandshakeRequest{})
			if status.Code(err) != tt.wantCode {
				t.Fatalf("Handshake: %v, want code %v", err, tt.wantCode)
			}
			secrets, refs := hs.GetAcceptSecrets(), hs.GetAcceptResources()
			if err != nil {
				cr, err := r.client.Configure(ctx, &pulumirpc.ConfigureRequest{
					Args: props(t, map[string]any{"store": t.TempDir()}), AcceptSecrets: true, AcceptResources: true,
				})
				if err != nil {
					t.Fatalf("Configure: %v", err)
				}
				if !cr.SupportsPreview {
					t.Error("legacy Configure does not say supportsPreview")
				}
				secrets, refs = cr.AcceptSecrets, cr.AcceptResources
			}
			if secrets != tt.wantSecrets || refs != tt.wantRefs {
				t.Errorf("accept secrets %v resources %v, want %v %v", secrets, refs, tt.wantSecrets, tt.wantRefs)
			}
			info, err := r.client.GetPluginInfo(ctx, &emptypb.Empty{})
			if err != nil || info.Version != "1.2.3" {
				t.Errorf("GetPluginInfo = %v, %v; want 1.2.3", info, err)
			}
		})
	}
}

func TestConfigure(t *testing.T) {
	r := start(t, "")
	ctx := context.Background()
	_, err := r.client.Configure(ctx, &pulumirpc.ConfigureRequest{Args: props(t, map[string]any{"zone": "a"})})
	var missing *pulumirpc.ConfigureErrorMissingKeys
	for _, d := range status.Convert(err).Details() {
		if m, ok := d.(*pulumirpc.ConfigureErrorMissingKeys); ok {
			missing = m
		}
	}
	if missing == nil || len(missing.MissingKeys) != 1 || missing.MissingKeys[0].Name != "store" ||
		missing.MissingKeys[0].Description == "" {
		t.Fatalf("Configure without store: %v, want a ConfigureErrorMissingKeys detail naming store", err)
	}
	_, err = r.client.Create(ctx, &pulumirpc.CreateRequest{Urn: thingURN("a"), Properties: props(t, nil)})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("Create before Configure: %v, want FailedPrecondition", err)
	}
}

func TestCheckConfig(t *testing.T) {
	r := start(t, "")
	tests := []struct {
		news map[string]any
		want []string // failing properties
	}{
		{map[string]any{"store": "/tmp/x", "zone": "eu-1"}, nil},
		{map[string]any{"zone": "EU 1"}, []string{"zone"}},
		{map[string]any{"store": 3.0, "token": true}, []string{"store", "token"}},
		{map[string]any{}, nil},
	}
	for _, tt := range tests {
		resp, err := r.client.CheckConfig(context.Background(), &pulumirpc.CheckRequest{
			Urn: providerURN, News: props(t, tt.news),
		})
		if err != nil {
			t.Fatalf("CheckConfig(%v): %v", tt.news, err)
		}
		var got []string
		for _, f := range resp.Failures {
			got = append(got, f.Property)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("CheckConfig(%v) failures %v, want %v", tt.news, resp.Failures, tt.want)
		}
	}
}

func TestDiffConfig(t *testing.T) {
	r := start(t, "")
	olds := map[string]any{"store": "/s", "zone": "a", "token": "t"}
	tests := []struct {
		news        map[string]any
		wantChanges pulumirpc.DiffResponse_DiffChanges
		wantReplace []string
	}{
		{map[string]any{"store": "/s", "zone": "a", "token": "t"}, pulumirpc.DiffResponse_DIFF_NONE, nil},
		{map[string]any{"store": "/s", "zone": "b", "token": "t"}, pulumirpc.DiffResponse_DIFF_SOME, []string{"zone"}},
		{map[string]any{"store": "/s", "zone": "a", "token": "u"}, pulumirpc.DiffResponse_DIFF_SOME, nil},
		{map[string]any{"store": "/t", "zone": "a"}, pulumirpc.DiffResponse_DIFF_SOME, nil},
	}
	for _, tt := range tests {
		resp, err := r.client.DiffConfig(context.Background(), &pulumirpc.DiffRequest{
			Urn: providerURN, Olds: props(t, olds), OldInputs: props(t, olds), News: props(t, tt.news),
		})
		if err != nil {
			t.Fatalf("DiffConfig(%v): %v", tt.news, err)
		}
		if resp.Changes != tt.wantChanges || !slices.Equal(resp.Replaces, tt.wantReplace) {
			t.Errorf("DiffConfig(%v) = %v replaces %v, want %v %v", tt.news, resp.Changes, resp.Replaces,
				tt.wantChanges, tt.wantReplace)
		}
	}
}

func TestCheck(t *testing.T) {
	r := start(t, "")
	ctx := context.Background()
	check := func(olds, news map[string]any, seed string) *pulumirpc.CheckResponse {
		resp, err := r.client.Check(ctx, &pulumirpc.CheckRequest{
			Urn: thingURN("web"), Olds: props(t, olds), News: props(t, news), RandomSeed: []byte(seed),
		})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		return resp
	}
	a := check(nil, map[string]any{"x": 1.0}, "seed-a").Inputs.AsMap()["name"]
	b := check(nil, map[string]any{"x": 1.0}, "seed-a").Inputs.AsMap()["name"]
	c := check(nil, map[string]any{"x": 1.0}, "seed-b").Inputs.AsMap()["name"]
	kept := check(map[string]any{"name": "old-name"}, map[string]any{}, "seed-c").Inputs.AsMap()["name"]
	given := check(nil, map[string]any{"name": "mine"}, "seed-a").Inputs.AsMap()["name"]
	if a != b || a == c || kept != "old-name" || given != "mine" {
		t.Errorf("names: seed a %v, again %v, seed b %v, with olds %v, given %v", a, b, c, kept, given)
	}
	if s, _ := a.(string); len(s) != len("web-12345678") || s[:4] != "web-" {
		t.Errorf("auto name %q, want web-<8 hex>", a)
	}
	f := check(nil, map[string]any{"checkFail": "size"}, "s").Failures
	if len(f) != 1 || f[0].Property != "size" || f[0].Reason == "" {
		t.Errorf("checkFail failures %v, want one for size", f)
	}
	if _, err := r.client.Check(ctx, &pulumirpc.CheckRequest{
		Urn: "urn:pulumi:dev::proj::testprov:index:Nope::x", News: props(t, nil),
	}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Check of an unknown type: %v, want InvalidArgument", err)
	}
}

func TestDiff(t *testing.T) {
	r := start(t, "")
	olds := map[string]any{"name": "n", "key": "k", "size": 1.0}
	tests := []struct {
		news        map[string]any
		wantChanges pulumirpc.DiffResponse_DiffChanges
		wantReplace []string
		wantDBR     bool
		wantKinds   map[string]pulumirpc.PropertyDiff_Kind
	}{
		{olds, pulumirpc.DiffResponse_DIFF_NONE, nil, false, nil},
		{map[string]any{"name": "n", "key": "k", "size": 2.0}, pulumirpc.DiffResponse_DIFF_SOME, nil, false,
			map[string]pulumirpc.PropertyDiff_Kind{"size": pulumirpc.PropertyDiff_UPDATE}},
		{map[string]any{"name": "m", "key": "k", "size": 1.0, "extra": true}, pulumirpc.DiffResponse_DIFF_SOME,
			[]string{"name"}, false, map[string]pulumirpc.PropertyDiff_Kind{
				"name": pulumirpc.PropertyDiff_UPDATE_REPLACE, "extra": pulumirpc.PropertyDiff_ADD}},
		{map[string]any{"name": "n", "key": "j", "size": 1.0, "dbr": true}, pulumirpc.DiffResponse_DIFF_SOME,
			nil, true, nil},
		{map[string]any{"name": "n", "key": "k"}, pulumirpc.DiffResponse_DIFF_SOME, nil, false,
			map[string]pulumirpc.PropertyDiff_Kind{"size": pulumirpc.PropertyDiff_DELETE}},
	}
	for i, tt := range tests {
		resp, err := r.client.Diff(context.Background(), &pulumirpc.DiffRequest{
			Urn: thingURN("n"), Id: "thing-1", Olds: props(t, olds), OldInputs: props(t, olds), News: props(t, tt.news),
		})
		if err != nil {
			t.Fatalf("%d: Diff: %v", i, err)
		}
		if resp.Changes != tt.wantChanges || resp.DeleteBeforeReplace != tt.wantDBR ||
			(tt.wantReplace != nil && !slices.Equal(resp.Replaces, tt.wantReplace)) {
			t.Errorf("%d: Diff = %v replaces %v dbr %v", i, resp.Changes, resp.Replaces, resp.DeleteBeforeReplace)
		}
		for k, kind := range tt.wantKinds {
			if d := resp.DetailedDiff[k]; d == nil || d.Kind != kind || !d.InputDiff {
				t.Errorf("%d: detailed diff of %s = %v, want %v", i, k, d, kind)
			}
		}
	}
}
