package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestFolderBackend runs the engine on the real folder backend: secrets
// are encrypted at rest, and a journal left by a crash is resolved by the
// next up without creating anything twice.
func TestFolderBackend(t *testing.T) {
	dir := t.TempDir()
	f, err := backend.Open("file://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.opts.Backend = f
	e.opts.Crypter = statetest.NewCrypter(3)
	e.opts.Config = map[string]any{"proj:token": resource.Secret{Element: "s3cr3t-token"}}
	prog := func(names ...string) engine.Program {
		return func(ctx *engine.Context) error {
			tok, _ := ctx.Config("token")
			for _, n := range names {
				ctx.Resource(typ, n, engine.Inputs{"token": tok})
			}
			ctx.Export("token", tok)
			return nil
		}
	}
	e.mustUp(prog("a", "b"))
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if strings.Contains(string(data), "s3cr3t-token") {
			t.Errorf("%s holds a plaintext secret", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Crash: a journal whose create of c began and never ended, the plugin
	// having created it.
	snap, err := f.Load(t.Context(), project, stack, e.opts.Crypter)
	if err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal(t.Context(), project, stack, snap, e.opts.Crypter)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Begin(t.Context(), backendEntry(urn("c"))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.plugin.Create(t.Context(), resource.CreateRequest{URN: urn("c"), Type: typ, Inputs: resource.PropertyMap{}}); err != nil {
		t.Fatal(err)
	}
	res := e.mustUp(prog("a", "b", "c"))
	if e.plugin.Count("Create") != 3 || res.Changes[engine.OpCreate] != 0 {
		t.Errorf("after the crash: %d creates in all, changes %v", e.plugin.Count("Create"), res.Changes)
	}
	if _, err := engine.Destroy(t.Context(), e.opts); err != nil || len(e.plugin.URNs()) != 0 {
		t.Errorf("destroy: %v, left %v", err, e.plugin.URNs())
	}
}
