package state

import (
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// IntegrityError is a snapshot that fails its checks: Problem says what is
// wrong and with which resource.
type IntegrityError struct {
	URN     resource.URN // the resource at fault ("" when none applies)
	Problem string
}

// Error describes the problem.
func (e *IntegrityError) Error() string { return "the snapshot is not consistent: " + e.Problem }

// Check verifies that snap is a consistent snapshot of (project, stack):
// every URN is well formed and belongs to that project and stack; no live
// (not condemned) URN appears twice; and every dependency, property
// dependency, parent, provider and deletedWith reference names a resource
// that comes earlier in the list. Pending operations need well-formed URNs of the
// project and stack. It returns an *IntegrityError for the first problem.
func Check(snap *Snapshot, project, stack string) error {
	if snap == nil {
		return nil
	}
	seen := make(map[resource.URN]bool, len(snap.Resources))
	live := make(map[resource.URN]bool, len(snap.Resources))
	all := make(map[resource.URN]bool, len(snap.Resources))
	for _, r := range snap.Resources {
		all[r.URN] = true
	}
	for i, r := range snap.Resources {
		if err := checkURN(r.URN, i, project, stack); err != nil {
			return err
		}
		if !r.Delete {
			if live[r.URN] {
				return &IntegrityError{URN: r.URN, Problem: fmt.Sprintf("resource %s appears twice (duplicate URN)", r.URN)}
			}
			live[r.URN] = true
		}
		for _, ref := range references(r) {
			if err := checkRef(r.URN, ref, seen, all); err != nil {
				return err
			}
		}
		seen[r.URN] = true
	}
	for i, op := range snap.PendingOperations {
		if op.Resource == nil {
			return &IntegrityError{Problem: fmt.Sprintf("pending operation #%d has no resource", i+1)}
		}
		if err := checkURN(op.Resource.URN, i, project, stack); err != nil {
			return err
		}
	}
	return nil
}

// reference is one edge from a resource to another.
type reference struct {
	kind string // "depends on", "has parent", "uses provider", ...
	urn  resource.URN
}

func references(r *Resource) []reference {
	var refs []reference
	if r.Parent != "" {
		refs = append(refs, reference{"has parent", r.Parent})
	}
	if r.Provider != "" {
		refs = append(refs, reference{"uses provider", ProviderURN(r.Provider)})
	}
	for _, d := range r.Dependencies {
		refs = append(refs, reference{"depends on", d})
	}
	if r.DeletedWith != "" {
		refs = append(refs, reference{"is deleted with", r.DeletedWith})
	}
	for key, deps := range r.PropertyDependencies {
		for _, d := range deps {
			refs = append(refs, reference{fmt.Sprintf("depends (through property %q) on", key), d})
		}
	}
	return refs
}

func checkRef(from resource.URN, ref reference, seen, all map[resource.URN]bool) error {
	switch {
	case seen[ref.urn]:
		return nil
	case all[ref.urn]:
		return &IntegrityError{URN: from, Problem: fmt.Sprintf("resource %s %s %s, which comes after it (resources out of order)", from, ref.kind, ref.urn)}
	default:
		return &IntegrityError{URN: from, Problem: fmt.Sprintf("resource %s %s %s, which is not in the snapshot (dangling reference)", from, ref.kind, ref.urn)}
	}
}

func checkURN(u resource.URN, i int, project, stack string) error {
	if !u.Valid() || u.Name() == "" || u.QualifiedType() == "" {
		return &IntegrityError{URN: u, Problem: fmt.Sprintf("resource #%d has a malformed URN %q (want urn:pulumi:<stack>::<project>::<type>::<name>)", i+1, string(u))}
	}
	if u.Project() != project || u.Stack() != stack {
		return &IntegrityError{URN: u, Problem: fmt.Sprintf("resource %s belongs to project %q stack %q, not to project %q stack %q", u, u.Project(), u.Stack(), project, stack)}
	}
	return nil
}

// ProviderURN returns the URN part of a provider reference
// ("<provider URN>::<provider ID>").
func ProviderURN(ref string) resource.URN {
	if i := strings.LastIndex(ref, "::"); i >= 0 {
		return resource.URN(ref[:i])
	}
	return resource.URN(ref)
}

// SortDependencyOrder reorders resources, as little as possible, so that
// each comes after the resources it refers to (parent, provider,
// dependencies, deletedWith) that are in the list. The order among unrelated resources
// is kept. References to resources not in the list are ignored, and a cycle
// leaves its members in their original order.
func SortDependencyOrder(resources []*Resource) []*Resource {
	index := make(map[resource.URN][]int, len(resources))
	for i, r := range resources {
		index[r.URN] = append(index[r.URN], i)
	}
	out := make([]*Resource, 0, len(resources))
	state := make([]byte, len(resources)) // 0 new, 1 visiting, 2 placed
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		for _, ref := range references(resources[i]) {
			for _, j := range index[ref.urn] {
				if j != i {
					visit(j)
				}
			}
		}
		state[i] = 2
		out = append(out, resources[i])
	}
	for i := range resources {
		visit(i)
	}
	return out
}
