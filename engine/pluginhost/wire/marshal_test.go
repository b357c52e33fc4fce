package wire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func secretObj(v any) map[string]any { return map[string]any{SigKey: SecretSig, "value": v} }

var (
	text    = resource.NewTextAsset("hello")
	urn     = resource.URN("urn:pulumi:dev::p::aws:s3/bucket:Bucket::b")
	keep    = Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true}
	outputs = Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true}
	plain   = Options{}
)

func TestMarshal(t *testing.T) {
	archive := resource.Archive{Hash: "ff", Assets: map[string]any{"a.txt": text, "sub": resource.Archive{Hash: "ab", Path: "dist"}}}
	tests := []struct {
		name string
		in   resource.PropertyMap
		o    Options
		want map[string]any
	}{
		{"primitives", resource.PropertyMap{"b": true, "n": 1.5, "s": "x", "z": nil}, plain, map[string]any{"b": true, "n": 1.5, "s": "x", "z": nil}},
		{"Go values normalized", resource.PropertyMap{"n": 3, "l": []string{"a"}}, plain, map[string]any{"n": 3.0, "l": []any{"a"}}},
		{"secret kept", resource.PropertyMap{"p": resource.Secret{Element: "pw"}}, keep, map[string]any{"p": secretObj("pw")}},
		{"secret stripped", resource.PropertyMap{"p": resource.Secret{Element: "pw"}}, plain, map[string]any{"p": "pw"}},
		{"nested secret in a list", resource.PropertyMap{"l": []any{"a", resource.Secret{Element: "b"}}}, keep, map[string]any{"l": []any{"a", secretObj("b")}}},
		{"secret inside a stripped map", resource.PropertyMap{"m": resource.Secret{Element: map[string]any{"k": resource.Secret{Element: "v"}}}}, plain, map[string]any{"m": map[string]any{"k": "v"}}},
		{"unknown kept", resource.PropertyMap{"u": resource.Computed{}}, keep, map[string]any{"u": UnknownString}},
		{"unknowns dropped", resource.PropertyMap{"u": resource.Computed{}, "l": []any{1.0, resource.Computed{}, 2.0}, "m": map[string]any{"x": resource.Computed{}}},
			plain, map[string]any{"l": []any{1.0, 2.0}, "m": map[string]any{}}},
		{"secret unknown dropped", resource.PropertyMap{"s": resource.Secret{Element: resource.Computed{}}}, Options{KeepSecrets: true}, map[string]any{}},
		{"text asset", resource.PropertyMap{"a": text}, plain, map[string]any{"a": map[string]any{SigKey: AssetSig, "hash": text.Hash, "text": "hello"}}},
		{"file asset", resource.PropertyMap{"a": resource.Asset{Hash: "cd", Path: "x.txt"}}, plain, map[string]any{"a": map[string]any{SigKey: AssetSig, "hash": "cd", "path": "x.txt"}}},
		{"elided asset", resource.PropertyMap{"a": text}, Options{ElideAssetContents: true}, map[string]any{"a": map[string]any{SigKey: AssetSig, "hash": text.Hash}}},
		{"archive", resource.PropertyMap{"a": archive}, plain, map[string]any{"a": map[string]any{SigKey: ArchiveSig, "hash": archive.Hash, "assets": map[string]any{
			"a.txt": map[string]any{SigKey: AssetSig, "hash": text.Hash, "text": "hello"},
			"sub":   map[string]any{SigKey: ArchiveSig, "hash": "ab", "path": "dist"},
		}}}},
		{"elided archive", resource.PropertyMap{"a": archive}, Options{ElideAssetContents: true}, map[string]any{"a": map[string]any{SigKey: ArchiveSig, "hash": archive.Hash}}},
		{"reference kept", resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: "b-1", PackageVersion: "6.0.0"}}, keep,
			map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn), "id": "b-1", "packageVersion": "6.0.0"}}},
		{"reference with unknown ID kept", resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: resource.Computed{}}}, keep,
			map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn), "id": ""}}},
		{"reference as its ID", resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: "b-1"}}, plain, map[string]any{"r": "b-1"}},
		{"component reference as its URN", resource.PropertyMap{"r": resource.ResourceReference{URN: urn}}, plain, map[string]any{"r": string(urn)}},
		{"reference with unknown ID as unknown", resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: resource.Computed{}}}, Options{KeepUnknowns: true}, map[string]any{"r": UnknownString}},
		{"reference with unknown ID dropped", resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: resource.Computed{}}}, plain, map[string]any{}},
		{"output value kept", resource.PropertyMap{"o": resource.Output{Element: "v", Known: true, Secret: true, Dependencies: []resource.URN{urn}}}, outputs,
			map[string]any{"o": map[string]any{SigKey: OutputValueSig, "value": "v", "secret": true, "dependencies": []any{string(urn)}}}},
		{"unknown output value kept", resource.PropertyMap{"o": resource.Output{Dependencies: []resource.URN{urn}}}, outputs,
			map[string]any{"o": map[string]any{SigKey: OutputValueSig, "dependencies": []any{string(urn)}}}},
		{"output value downgraded", resource.PropertyMap{"o": resource.Output{Element: "v", Known: true, Dependencies: []resource.URN{urn}}}, keep, map[string]any{"o": "v"}},
		{"secret output value downgraded", resource.PropertyMap{"o": resource.Output{Element: "v", Known: true, Secret: true}}, keep, map[string]any{"o": secretObj("v")}},
		{"unknown output value downgraded", resource.PropertyMap{"o": resource.Output{}}, keep, map[string]any{"o": UnknownString}},
		{"nil map", nil, plain, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Marshal(tt.in, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.AsMap(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Marshal =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestMarshalErrorsNameThePath(t *testing.T) {
	tests := []struct {
		name string
		in   resource.PropertyMap
		want string
	}{
		{"non-UTF-8 string", resource.PropertyMap{"tags": map[string]any{"Name": "\xff"}}, "tags.Name: the string is not valid UTF-8"},
		{"no property form", resource.PropertyMap{"l": []any{1.0, make(chan int)}}, "l[1]: a value of type chan int"},
		{"reference without URN", resource.PropertyMap{"r": resource.ResourceReference{ID: "x"}}, "r: a resource reference has no URN"},
		{"non-UTF-8 key", resource.PropertyMap{"m": map[string]any{"\xff": 1.0}}, `m: the key "\xff" is not valid UTF-8`},
		{"archive member", resource.PropertyMap{"a": resource.Archive{Assets: map[string]any{"x": "text"}}}, "a.x: an archive member must be an asset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Marshal(tt.in, keep); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Marshal error = %v, want one starting %q", err, tt.want)
			}
		})
	}
}
