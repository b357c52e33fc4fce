package engine_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// TestRandomPrograms runs a series of random programs (resources appearing,
// changing, being replaced either way and disappearing, with random
// dependencies) and checks after each up that the state and the plugin
// agree and that the snapshot is well formed.
func TestRandomPrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEnv(t)
	e.plugin.ReplaceKeys = []string{"zone"}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for round := 0; round < rounds; round++ {
		type spec struct {
			present    bool
			zone, size int
			dep        int
			dbr        bool
		}
		specs := make([]spec, 15)
		for i := range specs {
			specs[i] = spec{present: rng.IntN(4) > 0, zone: rng.IntN(2), size: rng.IntN(3), dep: -1, dbr: rng.IntN(2) == 0}
			if i > 0 && rng.IntN(2) == 0 {
				specs[i].dep = rng.IntN(i)
			}
		}
		prog := func(ctx *engine.Context) error {
			rs := make([]*engine.Resource, len(specs))
			for i, s := range specs {
				if !s.present {
					continue
				}
				in := engine.Inputs{"zone": s.zone, "size": s.size}
				if s.dep >= 0 && rs[s.dep] != nil {
					in["dep"] = rs[s.dep].Output("size")
				}
				rs[i] = ctx.Resource(typ, fmt.Sprintf("r%d", i), in, engine.DeleteBeforeReplace(s.dbr))
			}
			return nil
		}
		if _, err := e.up(prog); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		snap := e.snap()
		checkOrder(t, snap)
		live := map[resource.URN]bool{}
		for _, r := range snap.Resources {
			if r.Delete || live[r.URN] {
				t.Fatalf("round %d: %s condemned or duplicated in state", round, r.URN)
			}
			live[r.URN] = true
		}
		for i, s := range specs {
			u := urn(fmt.Sprintf("r%d", i))
			if s.present != live[u] || s.present != e.plugin.Exists(u) {
				t.Fatalf("round %d: %s declared=%v in state=%v in plugin=%v", round, u, s.present, live[u], e.plugin.Exists(u))
			}
		}
	}
	if _, err := engine.Destroy(t.Context(), e.opts); err != nil || len(e.plugin.URNs()) != 0 || len(e.snap().Resources) != 0 {
		t.Fatalf("destroy: %v, %d left", err, len(e.plugin.URNs()))
	}
}
