package plugins

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestBuiltinServesEachPackageOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Builtin(nil) {
		if seen[p.Package()] {
			t.Errorf("package %q served twice", p.Package())
		}
		seen[p.Package()] = true
	}
	for _, want := range []string{"random", "tls", "command", "file"} {
		if !seen[want] {
			t.Errorf("no plugin for package %q", want)
		}
	}
}

// TestConcurrentLifecycles runs Check, Create, Read and Delete of every
// built-in plugin from many goroutines at once (meaningful under -race).
func TestConcurrentLifecycles(t *testing.T) {
	dir := t.TempDir()
	byPkg := map[string]resource.Plugin{}
	for _, p := range Builtin(nil) {
		byPkg[p.Package()] = p
	}
	cases := []struct {
		pkg, typ string
		inputs   func(i int) resource.PropertyMap
	}{
		{"random", "random:index/randomPassword:RandomPassword", func(int) resource.PropertyMap { return resource.PropertyMap{"length": 12.0} }},
		{"tls", "tls:index/privateKey:PrivateKey", func(int) resource.PropertyMap { return resource.PropertyMap{"algorithm": "ED25519"} }},
		{"command", "command:local:Command", func(i int) resource.PropertyMap { return resource.PropertyMap{"create": fmt.Sprintf("echo %d", i)} }},
		{"file", "file:index:File", func(i int) resource.PropertyMap {
			return resource.PropertyMap{"path": filepath.Join(dir, fmt.Sprint(i)), "content": fmt.Sprint(i)}
		}},
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, c := range cases {
		p := byPkg[c.pkg]
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in, err := p.Check(ctx, resource.CheckRequest{Type: c.typ, News: c.inputs(i)})
				if err != nil {
					t.Errorf("%s Check: %v", c.typ, err)
					return
				}
				cr, err := p.Create(ctx, resource.CreateRequest{Type: c.typ, Inputs: in})
				if err != nil {
					t.Errorf("%s Create: %v", c.typ, err)
					return
				}
				rr, err := p.Read(ctx, resource.ReadRequest{Type: c.typ, ID: cr.ID, Inputs: in, Outputs: cr.Outputs})
				if err != nil || rr.ID != cr.ID {
					t.Errorf("%s Read = %q, %v; want ID %q", c.typ, rr.ID, err, cr.ID)
				}
				if err := p.Delete(ctx, resource.DeleteRequest{Type: c.typ, ID: cr.ID, Inputs: in, Outputs: cr.Outputs}); err != nil {
					t.Errorf("%s Delete: %v", c.typ, err)
				}
			}()
		}
	}
	wg.Wait()
}
