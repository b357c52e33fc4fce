package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
)

// readProgram is a hosted program that registers the managed resources
// named in manage (in order, input n), then reads each resource of reads
// (name -> ID; "@x": the ID of the managed resource x) with properties
// {"hint": name}, as a get does.
func readProgram(t *testing.T, manage []string, reads map[string]string) hostedFunc {
	return func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		ids := map[string]string{}
		for i, name := range manage {
			_, id, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: typ, Name: name, Parent: root, Custom: true}, resource.PropertyMap{"n": float64(i)})
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			ids[name] = id
		}
		for name, id := range reads {
			if strings.HasPrefix(id, "@") {
				id = ids[id[1:]]
			}
			resp, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{Type: typ, Name: name, Parent: root, Id: id,
				Properties: mustStruct(t, resource.PropertyMap{"hint": name}), AcceptSecrets: true})
			if err != nil {
				return fmt.Errorf("reading %s: %w", name, err)
			}
			outs, _ := wire.Unmarshal(resp.GetProperties(), wire.Options{KeepSecrets: true})
			if resp.GetId() != id || outs["n"] == nil {
				return fmt.Errorf("reading %s answered ID %q, outputs %v", name, resp.GetId(), outs)
			}
		}
		return nil
	}
}

// TestReadResourceRecordedExternal checks a program's get as Pulumi
// records it: external in the state, inputs as given and outputs as read,
// a second up unchanged, dropped from the state without a Delete when the
// program stops reading it, never deleted by destroy, and a read of an ID
// that does not exist an error naming it.
func TestReadResourceRecordedExternal(t *testing.T) {
	e := newHostedEnv(t)
	both := readProgram(t, []string{"a"}, map[string]string{"ext": "@a"})
	res, err := e.hosted(engine.Up, both)
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	ext, a := e.find("ext"), e.find("a")
	if ext == nil || !ext.External || ext.ID != a.ID || ext.Inputs["hint"] != "ext" || ext.Outputs["n"] != 0.0 || ext.Provider != a.Provider {
		t.Fatalf("ext recorded as %+v (a: %+v)", ext, a)
	}
	if res.Changes[engine.OpCreate] != 2 || res.Changes[engine.OpRead] != 1 {
		t.Errorf("first up counted %v", res.Changes)
	}
	entries := len(e.backend.Entries(project, stack))
	if res, err = e.hosted(engine.Up, both); err != nil || res.Changes[engine.OpSame] != 3 || len(res.Steps) != 0 {
		t.Fatalf("second up: %v, %v, %v", err, res.Changes, res.Steps)
	}
	if n := len(e.backend.Entries(project, stack)); n != entries {
		t.Errorf("the second up journaled %d entries; an unchanged read journals nothing", n-entries)
	}
	pv, err := e.hosted(engine.Preview, readProgram(t, []string{"a"}, nil))
	if err != nil || pv.Changes[engine.OpReadDiscard] != 1 || pv.Plan.Steps[len(pv.Plan.Steps)-1].Op != engine.OpReadDiscard {
		t.Fatalf("preview without the read: %v, %v", err, pv.Changes)
	}
	if _, err = e.hosted(engine.Up, readProgram(t, []string{"a"}, nil)); err != nil {
		t.Fatal(err)
	}
	if e.find("ext") != nil || e.find("a") == nil || e.plugin.Count("Delete") != 0 {
		t.Fatalf("a read resource the program dropped: in the state %v, %d deletes", e.find("ext") != nil, e.plugin.Count("Delete"))
	}
	if _, err = e.hosted(engine.Up, both); err != nil {
		t.Fatal(err)
	}
	if _, err = engine.Destroy(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if calls := e.plugin.CallsOf("Delete"); len(calls) != 1 || calls[0].URN != urn("a") {
		t.Errorf("destroy deleted %v, want only a", calls)
	}
	_, err = e.hosted(engine.Up, readProgram(t, nil, map[string]string{"ext": "no-such-id"}))
	if err == nil || !strings.Contains(err.Error(), `no test:index:Resource with ID "no-such-id" exists`) {
		t.Errorf("reading a missing ID: %v", err)
	}
	if e.find("ext") != nil {
		t.Error("a failed read is recorded")
	}
}

// TestReadResourceTakesAndGivesUpAURN checks the two transitions Pulumi
// makes between a managed and a read resource of one URN: a read where the
// stack managed a resource of another ID deletes the managed one
// (read-replacement); a registration where a read one was creates the
// resource and drops the read one without a Delete.
func TestReadResourceTakesAndGivesUpAURN(t *testing.T) {
	e := newHostedEnv(t)
	if _, err := e.hosted(engine.Up, readProgram(t, []string{"a", "x"}, nil)); err != nil {
		t.Fatal(err)
	}
	x := e.find("x")
	res, err := e.hosted(engine.Up, readProgram(t, []string{"a"}, map[string]string{"x": "@a"}))
	if err != nil {
		t.Fatal(err)
	}
	if calls := e.plugin.CallsOf("Delete"); len(calls) != 1 || calls[0].ID != x.ID {
		t.Errorf("read-replacement deleted %v, want the managed x (%s)", calls, x.ID)
	}
	if got := e.find("x"); got == nil || !got.External || got.ID != e.find("a").ID || res.Changes[engine.OpReplace] != 1 {
		t.Fatalf("x after the read-replacement: %+v, changes %v", got, res.Changes)
	}
	creates := e.plugin.Count("Create")
	if _, err = e.hosted(engine.Up, readProgram(t, []string{"a", "x"}, nil)); err != nil {
		t.Fatal(err)
	}
	got := e.find("x")
	if got == nil || got.External || e.plugin.Count("Create") != creates+1 || e.plugin.Count("Delete") != 1 {
		t.Fatalf("x taken over: %+v, %d creates, %d deletes", got, e.plugin.Count("Create")-creates, e.plugin.Count("Delete"))
	}
	for _, r := range e.snap().Resources {
		if r.External {
			t.Errorf("the read x is still in the state: %+v", r)
		}
	}
}

// TestRefreshReadsAReadResourceBack checks refresh re-reads a read
// resource, keeping it external, and drops it from the state when it is
// gone, deleting nothing.
func TestRefreshReadsAReadResourceBack(t *testing.T) {
	e := newHostedEnv(t)
	if _, err := e.hosted(engine.Up, readProgram(t, []string{"a"}, map[string]string{"ext": "@a"})); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Refresh(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if ext := e.find("ext"); ext == nil || !ext.External || ext.Outputs["n"] != 0.0 {
		t.Fatalf("ext after a refresh: %+v", ext)
	}
	e.plugin.OnRead = func(context.Context, resource.ReadRequest) (resource.ReadResponse, error) {
		return resource.ReadResponse{}, nil // everything is gone
	}
	if _, err := engine.Refresh(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if e.find("ext") != nil || e.plugin.Count("Delete") != 0 {
		t.Errorf("a read resource gone: still in the state %v, %d deletes", e.find("ext") != nil, e.plugin.Count("Delete"))
	}
}

// TestPreviewOfAReadWithAnUnknownID checks a preview's read whose ID is not
// known yet (made by a step the preview does not run) calls no plugin and
// answers unknown, as Pulumi does.
func TestPreviewOfAReadWithAnUnknownID(t *testing.T) {
	e := newHostedEnv(t)
	prog := hostedFunc(func(ctx context.Context, c *client) error {
		root, _, _, err := c.register(ctx, &pulumirpc.RegisterResourceRequest{Type: resource.RootStackType, Name: c.req.Project + "-" + c.req.Stack}, nil)
		if err != nil {
			return err
		}
		resp, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{Type: typ, Name: "ext", Parent: root, Id: resource.UnknownStringValue})
		if err != nil {
			return err
		}
		if !resp.GetUnknown() || resp.GetId() != "" {
			return fmt.Errorf("the read answered ID %q, unknown %v", resp.GetId(), resp.GetUnknown())
		}
		return nil
	})
	res, err := e.hosted(engine.Preview, prog)
	if err != nil || e.plugin.Count("Read") != 0 || res.Plan.Steps[len(res.Plan.Steps)-1].Op != engine.OpRead {
		t.Fatalf("preview: %v, %d reads, plan %+v", err, e.plugin.Count("Read"), res.Plan)
	}
}
