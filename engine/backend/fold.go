package backend

import (
	"fmt"

	"github.com/runnerhq/runner/engine/state"
)

// Fold applies journal entries, in the order written, to base (which it
// does not modify) with the engine's journal semantics (see the package
// engine documentation), as every backend does when it reads the journal
// of an operation that did not commit:
//
//   - a successful step is applied with the Old of its begin entry (an end
//     entry's Old is not used) and the New of its end entry: "create"
//     appends New; "create-replacement" (or "read-replacement", a read
//     where a managed resource was) with Old marks the live record
//     matching Old (URN and ID) as Delete and appends New; "update" makes
//     the record matching Old (URN, ID and Delete flag) New, and appends New
//     when no record matches (the resource exists, so it stays known); a
//     step without New ("delete", "delete-replaced") removes the record
//     matching Old;
//   - a failed step changes nothing;
//   - a begun step without an end becomes a pending operation, in the order
//     the steps began: "reading" for a read (which the next run drops: it
//     reads again), "creating" (the begin entry's New) for a create, a
//     create-replacement or any step without Old, "deleting" (Old) for a
//     step without New, "updating" (New) otherwise;
//   - the pending operations of base are kept, before the new ones.
//
// An end entry without its begin is an error. The result is not yet in
// dependency order: state.Repair orders it.
func Fold(base *state.Snapshot, entries []Entry) (*state.Snapshot, error) {
	snap := &state.Snapshot{}
	if base != nil {
		*snap = *base
		snap.Resources = append([]*state.Resource(nil), base.Resources...)
		snap.PendingOperations = append([]state.PendingOperation(nil), base.PendingOperations...)
	}
	begun := map[int64]Entry{}
	var order []int64
	for n, e := range entries {
		switch e.Kind {
		case EntryBegin:
			begun[e.Seq] = e
			order = append(order, e.Seq)
		case EntrySuccess, EntryFailure:
			b, ok := begun[e.Seq]
			if !ok {
				return nil, fmt.Errorf("entry %d: step %d ends without having begun", n+1, e.Seq)
			}
			delete(begun, e.Seq)
			if e.Kind == EntrySuccess {
				snap.Resources = apply(snap.Resources, b.Op, b.Old, e.New)
			}
		default:
			return nil, fmt.Errorf("entry %d: step %d has the unknown kind %q", n+1, e.Seq, e.Kind)
		}
	}
	for _, seq := range order {
		if b, ok := begun[seq]; ok && (b.Old != nil || b.New != nil) {
			snap.PendingOperations = append(snap.PendingOperations, pending(b))
		}
	}
	return snap, nil
}

func same(a, b *state.Resource) bool {
	return a.URN == b.URN && a.ID == b.ID && a.Delete == b.Delete
}

// apply folds one successful step into the resource list.
func apply(res []*state.Resource, op string, old, new *state.Resource) []*state.Resource {
	switch {
	case (op == "create-replacement" || op == "read-replacement") && old != nil && new != nil:
		for i, r := range res {
			if r.URN == old.URN && r.ID == old.ID && !r.Delete {
				c := *r
				c.Delete = true
				res[i] = &c
				break
			}
		}
		return append(res, new)
	case old != nil && new != nil:
		for i, r := range res {
			if same(r, old) {
				res[i] = new
				return res
			}
		}
		return append(res, new)
	case new != nil:
		return append(res, new)
	case old != nil:
		for i, r := range res {
			if same(r, old) {
				return append(res[:i:i], res[i+1:]...)
			}
		}
	}
	return res
}

// pending turns a begun step into a pending operation.
func pending(b Entry) state.PendingOperation {
	switch {
	case b.Op == "read" || b.Op == "read-replacement":
		return state.PendingOperation{Resource: b.New, Type: state.OperationReading}
	case b.Op == "create" || b.Op == "create-replacement" || b.Old == nil:
		return state.PendingOperation{Resource: b.New, Type: state.OperationCreating}
	case b.New == nil:
		return state.PendingOperation{Resource: b.Old, Type: state.OperationDeleting}
	}
	return state.PendingOperation{Resource: b.New, Type: state.OperationUpdating}
}
