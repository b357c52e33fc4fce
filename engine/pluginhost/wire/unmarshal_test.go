package wire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/protobuf/types/known/structpb"
)

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func outputObj(fields map[string]any) map[string]any {
	fields[SigKey] = OutputValueSig
	return fields
}

func TestUnmarshal(t *testing.T) {
	unknown := resource.Computed{}
	tests := []struct {
		name string
		in   map[string]any
		o    Options
		want resource.PropertyMap
	}{
		{"primitives", map[string]any{"b": false, "n": 2.0, "s": "x", "z": nil, "l": []any{1.0}}, plain, resource.PropertyMap{"b": false, "n": 2.0, "s": "x", "z": nil, "l": []any{1.0}}},
		{"every unknown sentinel", map[string]any{"b": UnknownBool, "n": UnknownNumber, "s": UnknownString, "l": []any{UnknownArray}, "m": map[string]any{"a": UnknownAsset, "r": UnknownArchive}, "o": UnknownObject},
			plain, resource.PropertyMap{"b": unknown, "n": unknown, "s": unknown, "l": []any{unknown}, "m": map[string]any{"a": unknown, "r": unknown}, "o": unknown}},
		{"secret kept", map[string]any{"p": secretObj("pw")}, keep, resource.PropertyMap{"p": resource.Secret{Element: "pw"}}},
		{"secret read plain", map[string]any{"p": secretObj("pw")}, plain, resource.PropertyMap{"p": "pw"}},
		{"secret in a list", map[string]any{"l": []any{secretObj(map[string]any{"k": "v"})}}, keep, resource.PropertyMap{"l": []any{resource.Secret{Element: map[string]any{"k": "v"}}}}},
		{"output value unknown", map[string]any{"o": outputObj(map[string]any{"dependencies": []any{string(urn)}})}, keep, resource.PropertyMap{"o": unknown}},
		{"output value secret", map[string]any{"o": outputObj(map[string]any{"value": "v", "secret": true})}, keep, resource.PropertyMap{"o": resource.Secret{Element: "v"}}},
		{"output value unknown secret", map[string]any{"o": outputObj(map[string]any{"secret": true})}, keep, resource.PropertyMap{"o": resource.Secret{Element: unknown}}},
		{"output value plain", map[string]any{"o": outputObj(map[string]any{"value": []any{"a"}, "secret": false})}, keep, resource.PropertyMap{"o": []any{"a"}}},
		{"output value kept", map[string]any{"o": outputObj(map[string]any{"value": "v", "secret": true, "dependencies": []any{string(urn)}})}, outputs,
			resource.PropertyMap{"o": resource.Output{Element: "v", Known: true, Secret: true, Dependencies: []resource.URN{urn}}}},
		{"unknown output value kept", map[string]any{"o": outputObj(map[string]any{})}, outputs, resource.PropertyMap{"o": resource.Output{}}},
		{"asset", map[string]any{"a": map[string]any{SigKey: AssetSig, "hash": "ab", "path": "x"}}, plain, resource.PropertyMap{"a": resource.Asset{Hash: "ab", Path: "x"}}},
		{"elided asset", map[string]any{"a": map[string]any{SigKey: AssetSig, "hash": "ab"}}, plain, resource.PropertyMap{"a": resource.Asset{Hash: "ab"}}},
		{"archive", map[string]any{"a": map[string]any{SigKey: ArchiveSig, "hash": "ff", "assets": map[string]any{
			"x": map[string]any{SigKey: AssetSig, "text": "t"}, "y": map[string]any{SigKey: ArchiveSig, "uri": "file:///d.zip"}}}},
			plain, resource.PropertyMap{"a": resource.Archive{Hash: "ff", Assets: map[string]any{"x": resource.Asset{Text: "t"}, "y": resource.Archive{URI: "file:///d.zip"}}}}},
		{"reference kept", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn), "id": "b-1", "packageVersion": "6.0.0", "name": "b"}}, keep,
			resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: "b-1", PackageVersion: "6.0.0"}}},
		{"reference unknown ID", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn), "id": ""}}, keep,
			resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: unknown}}},
		{"component reference", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn)}}, keep, resource.PropertyMap{"r": resource.ResourceReference{URN: urn}}},
		{"reference read as ID", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn), "id": "b-1"}}, plain, resource.PropertyMap{"r": "b-1"}},
		{"component reference read as URN", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn)}}, plain, resource.PropertyMap{"r": string(urn)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal(mustStruct(t, tt.in), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Unmarshal =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
	if m, err := Unmarshal(nil, plain); err != nil || m == nil || len(m) != 0 {
		t.Errorf("Unmarshal(nil) = %#v, %v; want an empty map", m, err)
	}
}

func TestUnmarshalErrorsNameThePath(t *testing.T) {
	reject := Options{RejectUnknowns: true, KeepSecrets: true, KeepResources: true}
	tests := []struct {
		name string
		in   map[string]any
		o    Options
		want string
	}{
		{"rejected unknown", map[string]any{"a": map[string]any{"b": []any{"x", UnknownObject}}}, reject, "a.b[1]: the plugin returned an unknown value"},
		{"rejected unknown in a secret", map[string]any{"s": secretObj(UnknownNumber)}, reject, "s: the plugin returned an unknown value"},
		{"rejected unknown output value", map[string]any{"o": outputObj(map[string]any{})}, reject, "o: the plugin returned an unknown value"},
		{"rejected unknown reference ID", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "urn": string(urn), "id": ""}}, reject, "r: the plugin returned an unknown value"},
		{"byte string", map[string]any{"tags": map[string]any{"Name": map[string]any{SigKey: ByteStringSig, "value": "AAE="}}}, keep, "tags.Name: the plugin sent a byte string"},
		{"unknown signature", map[string]any{"x": map[string]any{SigKey: "nope"}}, keep, `x: unknown special value signature "nope"`},
		{"archive member", map[string]any{"a": map[string]any{SigKey: ArchiveSig, "assets": map[string]any{"m": "text"}}}, keep, "a.m: an archive member is not an asset"},
		{"asset field type", map[string]any{"a": map[string]any{SigKey: AssetSig, "text": 1.0}}, keep, "a: an asset's text is not a string"},
		{"reference without URN", map[string]any{"r": map[string]any{SigKey: ResourceReferenceSig, "id": "x"}}, keep, "r: a resource reference has no urn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Unmarshal(mustStruct(t, tt.in), tt.o); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Unmarshal error = %v, want one starting %q", err, tt.want)
			}
		})
	}
}

func TestRemark(t *testing.T) {
	ins := resource.PropertyMap{
		"password": resource.Secret{Element: "pw"},
		"tags":     map[string]any{"Name": "n", "Token": resource.Secret{Element: "t"}},
		"list":     []any{"a", resource.Secret{Element: "b"}},
		"plain":    "p",
		"mixed":    map[string]any{"k": resource.Secret{Element: "v"}},
	}
	outs := resource.PropertyMap{
		"password": "pw", "tags": map[string]any{"Name": "n", "Token": "t", "Extra": "e"}, "list": []any{"a", "b"},
		"plain": "p", "mixed": "flattened", "new": "x", "already": resource.Secret{Element: "s"},
	}
	want := resource.PropertyMap{
		"password": resource.Secret{Element: "pw"},
		"tags":     map[string]any{"Name": "n", "Token": resource.Secret{Element: "t"}, "Extra": "e"},
		"list":     resource.Secret{Element: []any{"a", "b"}},
		"plain":    "p", "mixed": resource.Secret{Element: "flattened"}, "new": "x", "already": resource.Secret{Element: "s"},
	}
	if got := Remark(outs, ins); !reflect.DeepEqual(got, want) {
		t.Errorf("Remark =\n%#v\nwant\n%#v", got, want)
	}
	if outs["password"] != "pw" {
		t.Error("Remark changed its argument")
	}
}

func TestRestoreAssets(t *testing.T) {
	archive := resource.NewAssetArchive(map[string]any{"a": text})
	prior := resource.PropertyMap{"code": text, "nested": map[string]any{"site": archive}}
	read := resource.PropertyMap{
		"code":  resource.Asset{Hash: text.Hash},
		"deep":  []any{resource.Archive{Hash: archive.Hash}},
		"other": resource.Asset{Hash: "0000"},
		"full":  resource.NewTextAsset("bye"),
	}
	want := resource.PropertyMap{"code": text, "deep": []any{archive}, "other": resource.Asset{Hash: "0000"}, "full": resource.NewTextAsset("bye")}
	if got := RestoreAssets(read, prior); !reflect.DeepEqual(got, want) {
		t.Errorf("RestoreAssets =\n%#v\nwant\n%#v", got, want)
	}
	// Through the wire: elided on the way out, restored after.
	s, err := Marshal(prior, Options{ElideAssetContents: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(s, plain)
	if err != nil {
		t.Fatal(err)
	}
	if got := RestoreAssets(back, prior); !reflect.DeepEqual(got, prior) {
		t.Errorf("after an elided round trip RestoreAssets = %#v", got)
	}
}
