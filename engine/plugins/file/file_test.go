package file

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

var ctx = context.Background()

func checked(t *testing.T, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	m, err := Plugin{}.Check(ctx, resource.CheckRequest{Type: Type, News: news})
	if err != nil {
		t.Fatalf("Check(%v): %v", news, err)
	}
	return m
}

func TestCheck(t *testing.T) {
	tests := []struct {
		news     resource.PropertyMap
		wantErr  string
		wantMode string
	}{
		{resource.PropertyMap{}, `"path"`, ""},
		{resource.PropertyMap{"path": ""}, `"path"`, ""},
		{resource.PropertyMap{"path": 3.0}, `"path"`, ""},
		{resource.PropertyMap{"path": "a", "content": true}, `"content"`, ""},
		{resource.PropertyMap{"path": "a", "mode": "0999"}, `"mode"`, ""},
		{resource.PropertyMap{"path": "a", "mode": "01777"}, `"mode"`, ""},
		{resource.PropertyMap{"path": "a", "mode": "600"}, "", "0600"},
		{resource.PropertyMap{"path": "a"}, "", ""},
		{resource.PropertyMap{"path": resource.Computed{}, "mode": resource.Computed{}}, "", ""},
	}
	for _, tt := range tests {
		got, err := Plugin{}.Check(ctx, resource.CheckRequest{Type: Type, News: tt.news})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Check(%v) = %v, want an error naming %s", tt.news, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Check(%v): %v", tt.news, err)
			continue
		}
		if tt.wantMode != "" && got["mode"] != tt.wantMode {
			t.Errorf("Check(%v) mode = %v, want %s", tt.news, got["mode"], tt.wantMode)
		}
	}
}

func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.txt")
	in := checked(t, resource.PropertyMap{"path": path, "content": "hello\n", "mode": "0600"})

	cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	if cr.ID != path || cr.Outputs["path"] != path {
		t.Errorf("Create ID %q path %v, want %s", cr.ID, cr.Outputs["path"], path)
	}
	assertFile(t, path, "hello\n", 0o600)
	if cr.Outputs["sha256"] != digest([]byte("hello\n")) {
		t.Errorf("sha256 = %v", cr.Outputs["sha256"])
	}

	// Unchanged file: Read returns the same state and the declared inputs.
	rr, err := Plugin{}.Read(ctx, resource.ReadRequest{Type: Type, ID: cr.ID, Inputs: in, Outputs: cr.Outputs})
	if err != nil {
		t.Fatal(err)
	}
	if d := resource.DiffKeys(in, rr.Inputs, nil); len(d) != 0 {
		t.Errorf("Read of an unchanged file changed inputs %v", d)
	}
	if !resource.DeepEqual(map[string]any(rr.Outputs), map[string]any(cr.Outputs)) {
		t.Errorf("Read outputs %v, want %v", rr.Outputs, cr.Outputs)
	}

	// An edit outside runner is noticed.
	if err := os.WriteFile(path, []byte("edited"), 0o600); err != nil {
		t.Fatal(err)
	}
	rr, err = Plugin{}.Read(ctx, resource.ReadRequest{Type: Type, ID: cr.ID, Inputs: in, Outputs: cr.Outputs})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Outputs["content"] != "edited" || rr.Outputs["sha256"] != digest([]byte("edited")) {
		t.Errorf("Read after an edit = %v", rr.Outputs)
	}
	if d, _ := (Plugin{}).Diff(ctx, resource.DiffRequest{Type: Type, ID: rr.ID, OldInputs: rr.Inputs, NewInputs: in}); !slices.Equal(d.Changed, []string{"content"}) || len(d.Replaces) != 0 {
		t.Errorf("Diff after drift = %+v, want an update of content", d)
	}

	// Update restores content and changes mode.
	news := checked(t, resource.PropertyMap{"path": path, "content": "v2", "mode": "0640"})
	ur, err := Plugin{}.Update(ctx, resource.UpdateRequest{Type: Type, ID: cr.ID, OldInputs: in, OldOutputs: cr.Outputs, NewInputs: news})
	if err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "v2", 0o640)
	if ur.Outputs["mode"] != "0640" {
		t.Errorf("Update mode output %v", ur.Outputs["mode"])
	}

	// Delete, twice; then Read says it is gone.
	for range 2 {
		if err := (Plugin{}).Delete(ctx, resource.DeleteRequest{Type: Type, ID: cr.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file still there after Delete: %v", err)
	}
	rr, err = Plugin{}.Read(ctx, resource.ReadRequest{Type: Type, ID: cr.ID, Inputs: news})
	if err != nil || rr.ID != "" {
		t.Errorf("Read of a deleted file = %+v, %v; want no ID", rr, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "sub", ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func assertFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != content {
		t.Errorf("%s holds %q, want %q", path, b, content)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), mode)
	}
}

func TestPreviewWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", "f")
	tests := []struct {
		news        resource.PropertyMap
		wantUnknown bool
	}{
		{resource.PropertyMap{"path": path, "content": "x"}, false},
		{resource.PropertyMap{"path": path, "content": resource.Computed{}}, true},
		{resource.PropertyMap{"path": resource.Computed{}, "content": "x"}, true},
	}
	for _, tt := range tests {
		in := checked(t, tt.news)
		cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := resource.ContainsComputed(cr.Outputs["sha256"]); got != tt.wantUnknown {
			t.Errorf("preview of %v: sha256 %v", tt.news, cr.Outputs["sha256"])
		}
		_, err = Plugin{}.Update(ctx, resource.UpdateRequest{Type: Type, ID: path, NewInputs: in, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("preview created %s: %v", filepath.Dir(path), err)
	}
}

func TestSecretContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	in := checked(t, resource.PropertyMap{"path": path, "content": resource.Secret{Element: "hunter2"}})
	cr, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: Type, Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "hunter2", 0o644)
	for _, k := range []string{"content", "sha256"} {
		if !cr.Outputs.IsSecret(k) {
			t.Errorf("output %s is not secret: %T", k, cr.Outputs[k])
		}
	}
	os.WriteFile(path, []byte("other"), 0o644)
	rr, err := Plugin{}.Read(ctx, resource.ReadRequest{Type: Type, ID: cr.ID, Inputs: in, Outputs: cr.Outputs})
	if err != nil || !rr.Outputs.IsSecret("content") || !rr.Inputs.IsSecret("content") {
		t.Errorf("Read of a secret file = %v, %v; want secret content", rr.Outputs, err)
	}
}

func TestReadWithoutID(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		on      string // what is on disk; "" for nothing
		want    string // expected ID: "" for not found
		content string
	}{
		{"absent", "", "", ""},
		{"as expected", "want", "x", "want"},
		{"other content", "other", "x", "other"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if tt.on != "" {
			os.WriteFile(path, []byte(tt.on), 0o644)
		}
		in := checked(t, resource.PropertyMap{"path": path, "content": "want"})
		rr, err := Plugin{}.Read(ctx, resource.ReadRequest{Type: Type, Inputs: in})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if (rr.ID != "") != (tt.want != "") {
			t.Errorf("%s: ID %q", tt.name, rr.ID)
		}
		if tt.want != "" && (rr.ID != path || rr.Outputs["content"] != tt.content || rr.Outputs["sha256"] != digest([]byte(tt.content))) {
			t.Errorf("%s: Read = %+v", tt.name, rr)
		}
	}
}

func TestDiff(t *testing.T) {
	wd, _ := os.Getwd()
	olds := checked(t, resource.PropertyMap{"path": "a", "content": "x"})
	id := filepath.Join(wd, "a")
	tests := []struct {
		news     resource.PropertyMap
		id       string
		changed  []string
		replaces []string
	}{
		{resource.PropertyMap{"path": "a", "content": "x"}, id, nil, nil},
		{resource.PropertyMap{"path": "a", "content": "y"}, id, []string{"content"}, nil},
		{resource.PropertyMap{"path": "a", "content": "x", "mode": "0600"}, id, []string{"mode"}, nil},
		{resource.PropertyMap{"path": "b", "content": "y"}, id, []string{"content", "path"}, []string{"path"}},
		{resource.PropertyMap{"path": resource.Computed{}, "content": "x"}, id, []string{"path"}, []string{"path"}},
		{resource.PropertyMap{"path": "a", "content": "y"}, "/elsewhere/a", []string{"content", "path"}, []string{"path"}},
	}
	for _, tt := range tests {
		d, err := Plugin{}.Diff(ctx, resource.DiffRequest{Type: Type, ID: tt.id, OldInputs: olds, NewInputs: checked(t, tt.news)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Changed, tt.changed) || !slices.Equal(d.Replaces, tt.replaces) {
			t.Errorf("Diff(%v) = %+v, want changed %v replaces %v", tt.news, d, tt.changed, tt.replaces)
		}
	}
}
