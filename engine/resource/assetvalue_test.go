package resource

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestAssetHashes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		a       Asset
		want    string
		wantErr string
	}{
		{"text", NewTextAsset("hello"), sha("hello"), ""},
		{"relative file", NewFileAsset("hello.txt"), sha("hello"), ""},
		{"absolute file", NewFileAsset(filepath.Join(dir, "hello.txt")), sha("hello"), ""},
		{"file URI", NewURIAsset("file://" + filepath.ToSlash(filepath.Join(dir, "hello.txt"))), sha("hello"), ""},
		{"kept hash", Asset{Hash: "abc", Path: "missing"}, "abc", ""},
		{"missing file", NewFileAsset("missing.txt"), "", "reading the file asset"},
		{"remote URI", NewURIAsset("https://example.test/x"), "", "only file:// URIs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.a.EnsureHash(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("EnsureHash error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.Hash != tt.want {
				t.Fatalf("EnsureHash = %q, %v; want %q", got.Hash, err, tt.want)
			}
		})
	}
}

// writeTestArchives writes the folder "site" (a.txt, sub/b.txt) and the
// same files as site.tar, site.tgz and site.zip.
func writeTestArchives(t *testing.T, dir string) {
	t.Helper()
	files := []struct{ name, body string }{{"a.txt", "A"}, {"sub/b.txt", "BB"}}
	var tarBuf, zipBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	zw := zip.NewWriter(&zipBuf)
	for _, f := range files {
		p := filepath.Join(dir, "site", filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
		w, _ := zw.Create(f.name)
		w.Write([]byte(f.body))
	}
	tw.Close()
	zw.Close()
	os.WriteFile(filepath.Join(dir, "site.tar"), tarBuf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "site.zip"), zipBuf.Bytes(), 0o644)
}

func TestArchiveHashes(t *testing.T) {
	dir := t.TempDir()
	writeTestArchives(t, dir)
	literal := NewAssetArchive(map[string]any{"a.txt": NewTextAsset("A"), "sub": NewAssetArchive(map[string]any{"b.txt": NewTextAsset("BB")})})
	if literal.Hash == "" {
		t.Fatal("an archive of text assets has no hash from NewAssetArchive")
	}
	withFile := NewAssetArchive(map[string]any{"a.txt": NewFileAsset("site/a.txt"), "sub/b.txt": ptr(NewTextAsset("BB"))})
	if withFile.Hash != "" {
		t.Fatal("an archive with a file asset was hashed before its directory was known")
	}
	for _, a := range []Archive{NewFileArchive("site"), NewFileArchive("site.tar"), NewFileArchive("site.zip"), withFile} {
		got, err := a.EnsureHash(dir)
		if err != nil {
			t.Fatalf("%v: %v", a, err)
		}
		if got.Hash != literal.Hash {
			t.Errorf("%v hashes to %s, the same files as assets to %s", a, got.Hash, literal.Hash)
		}
	}
	changed := NewAssetArchive(map[string]any{"a.txt": NewTextAsset("A"), "sub/b.txt": NewTextAsset("BC")})
	if changed.Hash == literal.Hash {
		t.Error("archives with different contents hash the same")
	}
	for _, bad := range []Archive{NewFileArchive("missing"), {Assets: map[string]any{"x": "text"}}, NewURIArchive("s3://b/k")} {
		if _, err := bad.EnsureHash(dir); err == nil {
			t.Errorf("EnsureHash of %#v succeeded", bad)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestAssetValues(t *testing.T) {
	text := NewTextAsset("hello")
	archive := NewAssetArchive(map[string]any{"a": text})
	ref := ResourceReference{URN: "urn:pulumi:s::p::t::n", ID: "id-1"}
	eq := []struct {
		name string
		a, b any
		want bool
	}{
		{"same hash, other form", text, Asset{Hash: text.Hash}, true},
		{"other hash", text, NewTextAsset("bye"), false},
		{"no hashes, same path", NewFileAsset("x"), NewFileAsset("x"), true},
		{"asset vs string", text, "hello", false},
		{"archive by hash", archive, Archive{Hash: archive.Hash}, true},
		{"archives without hash", Archive{Assets: map[string]any{"a": NewFileAsset("x")}}, Archive{Assets: map[string]any{"a": NewFileAsset("x")}}, true},
		{"archives without hash differ", Archive{Assets: map[string]any{"a": NewFileAsset("x")}}, Archive{Assets: map[string]any{"a": NewFileAsset("y")}}, false},
		{"references", ref, ResourceReference{URN: ref.URN, ID: "id-1"}, true},
		// As Pulumi compares them: two unknown IDs are the same, an
		// unknown and a known one are not, package versions do not count.
		{"references with unknown IDs", ResourceReference{URN: ref.URN, ID: Computed{}}, ResourceReference{URN: ref.URN, ID: Computed{}}, true},
		{"reference with an unknown ID", ResourceReference{URN: ref.URN, ID: Computed{}}, ref, false},
		{"references of other IDs", ref, ResourceReference{URN: ref.URN, ID: "id-2"}, false},
		{"references of other URNs", ref, ResourceReference{URN: ref.URN + "x", ID: "id-1"}, false},
		{"references of other package versions", ref, ResourceReference{URN: ref.URN, ID: "id-1", PackageVersion: "1.2.3"}, true},
		{"custom and component references", ref, ResourceReference{URN: ref.URN}, false},
		{"component references", ResourceReference{URN: ref.URN}, ResourceReference{URN: ref.URN}, true},
	}
	for _, tt := range eq {
		if got := DeepEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: DeepEqual = %v, want %v", tt.name, got, tt.want)
		}
	}
	n, err := Normalize(map[string]any{"a": &text, "b": &Archive{Assets: map[string]any{"x": &text}}, "r": &ref})
	if err != nil {
		t.Fatal(err)
	}
	m := n.(map[string]any)
	if m["a"] != text || m["r"] != ref || m["b"].(Archive).Assets["x"] != text {
		t.Errorf("Normalize of pointers = %#v", m)
	}
	if _, err := Normalize(Archive{Assets: map[string]any{"x": 1}}); err == nil || !strings.Contains(err.Error(), `member "x"`) {
		t.Errorf("Normalize of an archive holding a number: %v", err)
	}
	visits := 0
	Walk(map[string]any{"b": archive}, func(v any, _ bool) bool {
		if _, ok := v.(Asset); ok {
			visits++
		}
		return true
	})
	if visits != 1 {
		t.Errorf("Walk visited %d assets inside an archive, want 1", visits)
	}
	if got := text.String(); got != "asset(text, sha256:"+text.Hash[:8]+"…)" {
		t.Errorf("String = %q", got)
	}
}

func TestEmptyTextIsNotElided(t *testing.T) {
	if NewTextAsset("").IsElided() || !(Asset{Hash: sha("x")}).IsElided() {
		t.Error("IsElided confuses the empty text with an elided asset")
	}
}
