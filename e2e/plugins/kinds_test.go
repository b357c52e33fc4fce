package plugins

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// A resource reference reaches the plugin as a reference when it accepts
// them, as the ID string when it does not: either way targetId is the
// referenced resource's ID.
func TestResourceReference(t *testing.T) {
	for _, accept := range []string{"", "false"} {
		t.Run("accept="+accept, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if accept != "" {
				e.extra = append(e.extra, "TESTPROV_ACCEPT_RESOURCES="+accept)
			}
			e.spec("one", map[string]any{
				"resources": []any{
					thing("a", map[string]any{"color": "red"}),
					map[string]any{"name": "r", "type": providertest.TypeRef, "inputs": map[string]any{"target": map[string]any{"$ref": "a"}}},
				},
				"outputs": map[string]any{"targetId": map[string]any{"$output": "r.targetId"}, "aId": map[string]any{"$id": "a"}},
			})
			if got := events(e.ok("preview", "--json").Stdout); len(got) == 0 {
				t.Fatalf("preview printed no events")
			}
			e.ok("up", "--yes")
			rs := e.byURNName()
			id, _ := rs["a"]["id"].(string)
			out := rs["r"]["outputs"].(map[string]any)
			if out["targetId"] != id || id == "" {
				t.Fatalf("r's targetId = %v, want a's id %q", out["targetId"], id)
			}
			urn, _ := out["targetUrn"].(string)
			if accept == "" && urn != rs["a"]["urn"] {
				t.Fatalf("r's targetUrn = %q, want a's URN %v", urn, rs["a"]["urn"])
			}
			if accept == "false" && urn != "" {
				t.Fatalf("the plugin refuses references but got the URN %q", urn)
			}
			if got := e.outputs("one", false); got["targetId"] != id {
				t.Fatalf("stack outputs %v, want targetId %q", got, id)
			}
			got, r := e.counts("up")
			want(t, "second up", got, r, map[string]int{"update": 0, "create": 0, "create-replacement": 0})
			e.destroyAll()
		})
	}
}

// A text asset and a folder archive: the plugin reads both; a changed text
// is an update, an unchanged asset no change.
func TestAssetsAndArchives(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	folder := filepath.Join(e.dir, "site")
	for name, text := range map[string]string{"index.html": "<p>hi</p>", "sub/app.js": "1;", "b.txt": "b"} {
		p := filepath.Join(folder, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := func(text string) {
		e.spec("one", map[string]any{"resources": []any{
			map[string]any{"name": "blob", "type": providertest.TypeBlob, "inputs": map[string]any{
				"asset":   map[string]any{"$textAsset": text},
				"archive": map[string]any{"$fileArchive": "site"},
			}},
		}})
	}
	spec("hello")
	got, r := e.counts("up")
	want(t, "first up", got, r, map[string]int{"create": 1})
	out := e.byURNName()["blob"]["outputs"].(map[string]any)
	names := []any{"b.txt", "index.html", "sub/app.js"}
	if out["assetText"] != "hello" || !reflect.DeepEqual(out["archiveNames"], names) {
		t.Fatalf("blob outputs assetText %v archiveNames %v, want hello and %v", out["assetText"], out["archiveNames"], names)
	}
	st := e.exported("one", false)["blob"]
	if st.Outputs["assetText"] != "hello" || !reflect.DeepEqual(st.Outputs["archiveNames"], names) {
		t.Fatalf("blob's outputs in state: %v", st.Outputs)
	}

	got, r = e.counts("up")
	want(t, "up with the same asset", got, r, map[string]int{"update": 0, "create": 0, "create-replacement": 0})

	spec("hello again")
	got, r = e.counts("preview")
	want(t, "preview of a changed text", got, r, map[string]int{"update": 1})
	got, r = e.counts("up")
	want(t, "up of a changed text", got, r, map[string]int{"update": 1, "create-replacement": 0})
	if out := e.byURNName()["blob"]["outputs"].(map[string]any); out["assetText"] != "hello again" || out["generation"] != 2.0 {
		t.Fatalf("after the update blob's outputs are %v", out)
	}
	got, r = e.counts("up")
	want(t, "up after the update", got, r, map[string]int{"update": 0, "create": 0})

	// A new file in the archived folder changes the archive.
	if err := os.WriteFile(filepath.Join(folder, "c.txt"), []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, r = e.counts("up")
	want(t, "up of a changed folder", got, r, map[string]int{"update": 1, "create-replacement": 0})
	names = []any{"b.txt", "c.txt", "index.html", "sub/app.js"}
	if out := e.byURNName()["blob"]["outputs"].(map[string]any); !reflect.DeepEqual(out["archiveNames"], names) {
		t.Fatalf("after the folder changed archiveNames = %v, want %v", out["archiveNames"], names)
	}
	e.destroyAll()
}
