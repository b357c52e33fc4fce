package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestNoopUpKeepsTheOrder: an up that changes nothing, its steps running
// side by side and finishing in any order, commits the resources in the
// order the snapshot had, so that a store sees that nothing changed.
func TestNoopUpKeepsTheOrder(t *testing.T) {
	be := plugintest.NewBackend()
	plug := &plugintest.Plugin{Latency: time.Millisecond}
	opts := engine.Options{Project: project, Stack: stack, Backend: be,
		Plugins: []resource.Plugin{plug}, Crypter: statetest.NewCrypter(7), Parallel: 32}
	ctx := context.Background()
	if _, err := engine.Up(ctx, opts, wideProgram(200)); err != nil {
		t.Fatal(err)
	}
	order := func() string {
		var s string
		for _, r := range be.Get(project, stack).Resources {
			s += string(r.URN) + "\n"
		}
		return s
	}
	first := order()
	for i := range 3 {
		if _, err := engine.Up(ctx, opts, wideProgram(200)); err != nil {
			t.Fatal(err)
		}
		if got := order(); got != first {
			t.Fatalf("no-op up %d committed another order:\n%s", i+1, diffLines(first, got))
		}
	}
}

// diffLines names the first line where a and b differ.
func diffLines(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d: %q vs %q", i, a[max(0, i-40):min(len(a), i+40)], b[max(0, i-40):min(len(b), i+40)])
		}
	}
	return "one is a prefix of the other"
}
