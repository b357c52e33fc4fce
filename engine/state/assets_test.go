package state_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

func TestAssetsRoundTrip(t *testing.T) {
	ctx := context.Background()
	text := resource.NewTextAsset("hello")
	urn := resource.URN("urn:pulumi:dev::network::thing::r1")
	values := map[string]any{
		"text":         text,
		"emptyText":    resource.NewTextAsset(""),
		"file":         resource.Asset{Hash: "ab12", Path: "site/index.html"},
		"uri":          resource.Asset{Hash: "cd34", URI: "https://example.test/x"},
		"elided":       resource.Asset{Hash: text.Hash},
		"archive":      resource.NewAssetArchive(map[string]any{"a.txt": text, "sub": resource.NewAssetArchive(map[string]any{"b": resource.NewTextAsset("b")})}),
		"emptyArchive": resource.NewAssetArchive(map[string]any{}),
		"folder":       resource.Archive{Hash: "ef56", Path: "dist"},
		"elidedArch":   resource.Archive{Hash: "ef56"},
		"ref":          resource.ResourceReference{URN: urn, ID: "id-1", PackageVersion: "1.2.3"},
		"component":    resource.ResourceReference{URN: urn},
		"secretAsset":  resource.Secret{Element: resource.NewTextAsset("s3cr3t-text")},
		"inList":       []any{text, map[string]any{"r": resource.ResourceReference{URN: urn, ID: "x"}}},
	}
	c := statetest.NewCrypter(1)
	enc, err := state.MarshalProperties(ctx, values, c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := state.UnmarshalProperties(ctx, enc, c)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range values {
		if !reflect.DeepEqual(got[k], want) {
			t.Errorf("%s: round trip gave %#v, want %#v", k, got[k], want)
		}
	}
	// An unknown ID is "" on disk and comes back unknown.
	enc, _ = state.MarshalProperties(ctx, resource.PropertyMap{"r": resource.ResourceReference{URN: urn, ID: resource.Computed{}}}, c)
	if enc["r"].(map[string]any)["id"] != "" {
		t.Errorf("an unknown ID encodes as %#v", enc["r"])
	}
	back, _ := state.UnmarshalProperties(ctx, enc, c)
	if id := back["r"].(resource.ResourceReference).ID; id != (resource.Computed{}) {
		t.Errorf("an unknown ID decodes as %#v", id)
	}
	// As Pulumi's state records references: packageVersion always, even
	// "", and no id for a component.
	enc, _ = state.MarshalProperties(ctx, resource.PropertyMap{"c": resource.ResourceReference{URN: urn},
		"r": resource.ResourceReference{URN: urn, ID: "id-1"}}, c)
	for k, want := range map[string]map[string]any{
		"c": {state.SigKey: state.ResourceReferenceSig, "urn": string(urn), "packageVersion": ""},
		"r": {state.SigKey: state.ResourceReferenceSig, "urn": string(urn), "packageVersion": "", "id": "id-1"},
	} {
		if !reflect.DeepEqual(enc[k], want) {
			t.Errorf("the reference %s encodes as %#v, want %#v", k, enc[k], want)
		}
	}
	want := map[string]any{state.SigKey: state.AssetSig, "hash": text.Hash, "text": "hello"}
	if e, _ := state.MarshalProperties(ctx, resource.PropertyMap{"a": text}, c); !reflect.DeepEqual(e["a"], want) {
		t.Errorf("a text asset encodes as %#v, want %#v", e["a"], want)
	}
}

func TestAssetDecodeErrors(t *testing.T) {
	ctx := context.Background()
	tests := map[string]map[string]any{
		"text not a string":  {state.SigKey: state.AssetSig, "text": 1.0},
		"member not asset":   {state.SigKey: state.ArchiveSig, "assets": map[string]any{"x": "plain"}},
		"member a reference": {state.SigKey: state.ArchiveSig, "assets": map[string]any{"x": map[string]any{state.SigKey: state.ResourceReferenceSig, "urn": "u"}}},
		"assets not object":  {state.SigKey: state.ArchiveSig, "assets": []any{}},
		"reference no urn":   {state.SigKey: state.ResourceReferenceSig, "id": "x"},
	}
	for name, obj := range tests {
		if _, err := state.UnmarshalProperties(ctx, map[string]any{"p": obj}, nil); err == nil || !strings.Contains(err.Error(), `property "p"`) {
			t.Errorf("%s: err = %v, want one naming the property", name, err)
		}
	}
}

func TestAssetsInSchema(t *testing.T) {
	dir := statetest.SchemaDir(t)
	strict, err := state.CompileSchema(func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	snap := statetest.Snapshot("network", "dev", 2)
	urn := snap.Resources[1].URN
	snap.Resources[2].Inputs["code"] = resource.NewAssetArchive(map[string]any{"index.js": resource.NewTextAsset("x"), "lib": resource.Archive{Hash: "ab", Path: "lib"}})
	snap.Resources[2].Inputs["file"] = resource.Asset{Hash: "cd", Path: "a.txt"}
	snap.Resources[2].Inputs["uri"] = resource.Asset{Hash: "cd", URI: "https://example.test/a.txt"}
	snap.Resources[2].Outputs["elided"] = resource.Asset{Hash: "cd"}
	snap.Resources[2].Outputs["ref"] = resource.ResourceReference{URN: urn, ID: resource.Computed{}, PackageVersion: "4.0.0"}
	snap.Resources[2].Outputs["component"] = resource.ResourceReference{URN: urn}
	data, err := state.Marshal(ctx, snap, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := state.ValidateSchema(data); err != nil {
		t.Fatalf("a snapshot with assets fails the schema: %v", err)
	}
	doc := parse(t, data)
	if err := state.StripExtensions(doc); err != nil {
		t.Fatal(err)
	}
	if err := strict.Validate(doc); err != nil {
		t.Fatalf("a snapshot with assets fails the shared schema: %v", err)
	}
	// The schema sees assets: an asset with both text and path fails.
	bad := strings.Replace(string(data), `"path":"a.txt"`, `"path":"a.txt","text":"x"`, 1)
	if err := state.ValidateSchema([]byte(bad)); err == nil {
		t.Fatal("an asset with both text and path passes the schema")
	}
}
