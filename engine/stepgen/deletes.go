package stepgen

import (
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
)

// CondemnedAfterUp lists what an up deletes once every declared resource is
// done: replaced resources, resources condemned by an earlier run, and
// resources the program no longer declares.
func (d *Generator) CondemnedAfterUp(declared map[resource.URN]bool) []runstate.Doomed {
	var out []runstate.Doomed
	for _, r := range d.Old.Resources {
		next, ok := d.Fate[r]
		switch {
		case ok && next != nil && next.Delete:
			out = append(out, runstate.Doomed{Orig: r, Res: next, Op: DeleteOp(next, true), Replaced: true})
		case ok:
		case r.Delete:
			out = append(out, runstate.Doomed{Orig: r, Res: r, Op: DeleteOp(r, true)})
		case !declared[r.URN]:
			out = append(out, runstate.Doomed{Orig: r, Res: r, Op: DeleteOp(r, false)})
		}
	}
	return out
}

// CondemnedAll lists every recorded resource (destroy).
func (d *Generator) CondemnedAll() []runstate.Doomed {
	out := make([]runstate.Doomed, len(d.Old.Resources))
	for i, r := range d.Old.Resources {
		out[i] = runstate.Doomed{Orig: r, Res: r, Op: DeleteOp(r, r.Delete)}
	}
	return out
}

// RefuseProtected fails, before anything is deleted, when a doomed resource
// is protected; the error names every such resource.
func RefuseProtected(list []runstate.Doomed) error {
	var names []string
	for _, x := range list {
		if x.Res.Protect {
			names = append(names, fmt.Sprintf("%s %q", x.Res.Type, x.Res.URN.Name()))
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("refusing to delete protected resources (%s); to allow it, set each one's protect option to false in the program (Protect(false) in Go), run up, then retry", strings.Join(names, ", "))
}

// DeleteOrder orders deletes in reverse dependency order: it returns, for
// each doomed resource, those of list deleted before it (every doomed
// resource that depends on it, through its dependencies, its parent, its
// provider or its deletedWith). Independent deletes may run in parallel.
func DeleteOrder(list []runstate.Doomed) [][]int {
	byURN := make(map[resource.URN][]int, len(list))
	for i, x := range list {
		byURN[x.Res.URN] = append(byURN[x.Res.URN], i)
	}
	deps := make([][]int, len(list))
	for i, x := range list {
		refs := append([]resource.URN{x.Res.Parent, runstate.ProviderURN(x.Res.Provider), x.Res.DeletedWith}, x.Res.Dependencies...)
		for _, u := range refs {
			for _, j := range byURN[u] {
				if j != i {
					deps[j] = append(deps[j], i)
				}
			}
		}
	}
	return deps
}
