package plugintest_test

import (
	"context"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

func TestJournalFold(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	old := &state.Resource{URN: "urn:pulumi:s::p::t:m:R::a", ID: "1", Custom: true}
	base := &state.Snapshot{Resources: []*state.Resource{old}}
	j, err := b.OpenJournal(ctx, "p", "s", base, nil)
	if err != nil {
		t.Fatal(err)
	}
	repl := &state.Resource{URN: old.URN, ID: "2", Custom: true}
	created := &state.Resource{URN: "urn:pulumi:s::p::t:m:R::b", Custom: true}
	steps := []backend.Entry{
		{Seq: 1, Kind: backend.EntryBegin, Op: "create-replacement", Old: old, New: repl},
		{Seq: 1, Kind: backend.EntrySuccess, Op: "create-replacement", Old: old, New: repl},
		{Seq: 2, Kind: backend.EntryBegin, Op: "create", New: created},
	}
	for _, e := range steps {
		if e.Kind == backend.EntryBegin {
			err = j.Begin(ctx, e)
		} else {
			err = j.End(ctx, e)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	snap, err := b.Load(ctx, "p", "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Resources) != 2 || !snap.Resources[0].Delete || snap.Resources[1].ID != "2" {
		t.Errorf("resources after a replacement: %+v %+v", snap.Resources[0], snap.Resources[len(snap.Resources)-1])
	}
	if len(snap.PendingOperations) != 1 || snap.PendingOperations[0].Type != state.OperationCreating || snap.PendingOperations[0].Resource.URN != created.URN {
		t.Errorf("pending operations %+v", snap.PendingOperations)
	}
	if _, err := b.Lock(ctx, "p", "s", backend.LockInfo{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(ctx, "p", "s", backend.LockInfo{}); err == nil {
		t.Errorf("a second lock was granted")
	}
}

func TestPluginDefaults(t *testing.T) {
	ctx := context.Background()
	p := &plugintest.Plugin{ReplaceKeys: []string{"zone"}}
	urn := resource.URN("urn:pulumi:s::p::test:index:Resource::a")
	prev, err := p.Create(ctx, resource.CreateRequest{URN: urn, Inputs: resource.PropertyMap{"k": 1.0}, Preview: true})
	if err != nil || prev.ID != "" || !resource.ContainsComputed(prev.Outputs["result"]) || p.Exists(urn) {
		t.Fatalf("preview create: %+v %v", prev, err)
	}
	c, err := p.Create(ctx, resource.CreateRequest{URN: urn, Inputs: resource.PropertyMap{"k": 1.0}})
	if err != nil || c.ID == "" || c.Outputs["k"] != 1.0 {
		t.Fatalf("create: %+v %v", c, err)
	}
	r, err := p.Read(ctx, resource.ReadRequest{URN: urn})
	if err != nil || r.ID != c.ID {
		t.Errorf("read by URN: %+v %v", r, err)
	}
	d, _ := p.Diff(ctx, resource.DiffRequest{OldInputs: resource.PropertyMap{"zone": "a", "k": 1.0}, NewInputs: resource.PropertyMap{"zone": "b", "k": 2.0}})
	if len(d.Changed) != 2 || len(d.Replaces) != 1 || d.Replaces[0] != "zone" {
		t.Errorf("diff %+v", d)
	}
	if err := p.Delete(ctx, resource.DeleteRequest{URN: urn, ID: c.ID}); err != nil || p.Exists(urn) {
		t.Errorf("delete: %v, exists %v", err, p.Exists(urn))
	}
}
