package program_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

func TestAssetsAndReferencesAsInputs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>hi</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := env()
	e.Dir = dir
	ds, err := program.Run(context.Background(), e, func(c *program.Context) error {
		a := c.Resource(typ, "a", nil)
		comp := c.Component("test:index:Group", "c")
		c.Resource(typ, "b", program.Inputs{
			"code":  program.StringAsset("print(1)"),
			"page":  program.FileAsset("index.html"),
			"site":  program.AssetArchive(map[string]any{"index.html": program.FileAsset("index.html")}),
			"refs":  []any{a, comp},
			"inMap": map[string]any{"a": a},
		})
		c.Resource(typ, "bad", program.Inputs{"f": program.FileAsset("missing.txt")})
		c.Export("page", program.FileAsset("index.html"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deps, err := ds.Dependencies(3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deps.Waits, []int{1, 2}) || len(deps.Properties["refs"]) != 2 || len(deps.Properties["inMap"]) != 1 {
		t.Fatalf("a resource passed as a value is no dependency: %+v", deps)
	}
	if _, err := ds.Inputs(3); err == nil {
		t.Fatal("resolving references to unfinished resources: no error")
	}
	// In a preview, a's ID is not known yet.
	ds.Finish(1, "", false, nil, nil)
	ds.Finish(2, "", false, nil, nil)
	in, err := ds.Inputs(3)
	if err != nil {
		t.Fatal(err)
	}
	refs := in["refs"].([]any)
	aRef := refs[0].(resource.ResourceReference)
	if aRef.URN.Name() != "a" || aRef.ID != (resource.Computed{}) || refs[1].(resource.ResourceReference).ID != nil {
		t.Errorf("references = %#v, want a's with an unknown ID and c's with none", refs)
	}
	if !resource.ContainsComputed(in["inMap"]) {
		t.Error("a reference with an unknown ID does not count as unknown")
	}
	page := resource.NewTextAsset("<p>hi</p>")
	if got := in["page"].(resource.Asset); got.Hash != page.Hash || got.Path != "index.html" {
		t.Errorf("file asset = %#v, want hash %s", got, page.Hash)
	}
	if in["site"].(resource.Archive).Hash == "" || !resource.DeepEqual(in["code"], program.StringAsset("print(1)")) {
		t.Errorf("inputs = %v", in)
	}
	if _, err := ds.Inputs(4); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("a missing file asset: err = %v", err)
	}
	outs, err := ds.Outputs()
	if err != nil || outs["page"].(resource.Asset).Hash != page.Hash {
		t.Errorf("stack output of an asset = %#v, %v", outs["page"], err)
	}
	ds.Finish(1, "id-a", true, nil, nil)
	if in, _ := ds.Inputs(3); in["inMap"].(map[string]any)["a"].(resource.ResourceReference).ID != "id-a" {
		t.Errorf("after the create the reference is %#v", in["inMap"])
	}
}
