package backend

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

func TestStackCommands(t *testing.T) {
	ctx := context.Background()
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", 2), c)
	commit(t, f, "app", "dev", statetest.Snapshot("app", "dev", 1), c)
	commit(t, f, "network", "prod", statetest.Snapshot("network", "prod", 1), c)

	stacks, err := f.ListStacks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(stacks) != 2 || stacks[0].Name != "dev" || strings.Join(stacks[0].Projects, ",") != "app,network" || stacks[1].Name != "prod" {
		t.Fatalf("ListStacks = %+v", stacks)
	}

	sum, err := f.Summary(context.Background(), "network", "dev")
	if err != nil || sum.Resources != 4 || sum.LastUpdate == nil || sum.LastUpdate.Kind != "update" || sum.Locked != nil {
		t.Fatalf("Summary = %+v, %v", sum, err)
	}
	if _, err := f.Summary(context.Background(), "ghost", "dev"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Summary of a missing project = %v", err)
	}

	outs, err := f.Outputs(ctx, "network", "dev", c)
	if err != nil || outs["endpoint"] != "https://example.test" || !resource.DeepEqual(outs["token"], resource.Secret{Element: "s3cr3t"}) {
		t.Fatalf("Outputs = %v, %v", outs, err)
	}

	// Export then import into another stack's project: URNs must match.
	data, err := f.Export(ctx, "network", "dev")
	if err != nil || !strings.Contains(string(data), `"ciphertext"`) {
		t.Fatalf("Export: %v", err)
	}
	if err := f.Import(ctx, "network", "prod", data, c); err == nil || !strings.Contains(err.Error(), `not to project "network" stack "prod"`) {
		t.Fatalf("Import of another stack's state = %v", err)
	}
	if err := f.Import(ctx, "network", "dev", data, statetest.NewCrypter(9)); err == nil || !strings.Contains(err.Error(), "decrypt") {
		t.Fatalf("Import with the wrong crypter = %v", err)
	}
	if err := f.Import(ctx, "network", "dev", []byte(`{"version":3,"deployment":{"resources":[]}}`), c); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Fatalf("Import of a deployment without manifest = %v", err)
	}
	modified := statetest.Snapshot("network", "dev", 5)
	mdata, _ := state.Marshal(ctx, modified, c)
	if err := f.Import(ctx, "network", "dev", mdata, c); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Export(ctx, "network", "dev"); !sameDeployment(got, mdata) {
		t.Fatal("the imported deployment is not stored as given")
	}
	hist, _ := f.History(context.Background(), "dev", "network")
	if hist[0].Kind != "import" {
		t.Fatalf("newest history entry = %+v", hist[0])
	}
	// Import respects the lock.
	l, _ := f.Lock(ctx, "network", "dev", CurrentLockInfo("runner up"))
	var le *LockedError
	if err := f.Import(ctx, "network", "dev", mdata, c); !errors.As(err, &le) {
		t.Fatalf("Import under someone else's lock = %v", err)
	}
	l.Unlock()

	// Tags.
	if err := f.SetTag(context.Background(), "dev", "owner", "ann"); err != nil {
		t.Fatal(err)
	}
	f.SetTag(context.Background(), "dev", "team", "net")
	f.RemoveTag(context.Background(), "dev", "team")
	if tags, err := f.Tags(context.Background(), "dev"); err != nil || len(tags) != 1 || tags["owner"] != "ann" {
		t.Fatalf("Tags = %v, %v", tags, err)
	}

	// RemoveStack refuses while resources remain, unless forced.
	if err := f.RemoveStack(ctx, "app", "dev", false); err == nil || !strings.Contains(err.Error(), "still manages") {
		t.Fatalf("RemoveStack = %v", err)
	}
	if err := f.RemoveStack(ctx, "app", "dev", true); err != nil {
		t.Fatal(err)
	}
	if err := f.RemoveStack(ctx, "network", "prod", true); err != nil {
		t.Fatal(err)
	}
	stacks, _ = f.ListStacks(context.Background())
	if len(stacks) != 1 || strings.Join(stacks[0].Projects, ",") != "network" {
		t.Fatalf("after removals: %+v", stacks)
	}
	if _, err := f.Export(ctx, "app", "dev"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Export of a removed project = %v", err)
	}
}
