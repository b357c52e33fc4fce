package state

import (
	"fmt"
	"slices"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// Fix is one change Repair made to a snapshot.
type Fix struct {
	URN  resource.URN // the resource changed or added ("" for the order)
	What string       // a sentence saying what changed and why
}

// Repair makes snap's references consistent, as `pulumi state repair` does,
// and returns one Fix per change (none for a snapshot whose references all
// resolve and come in order):
//   - a missing root stack resource that resources have as parent, and a
//     missing provider that resources use, are added back as the engine
//     records them (neither has a plugin of its own: the root holds only
//     the stack outputs, a default provider only its ID);
//   - a parent that is not in the snapshot is replaced by the root stack;
//   - dependencies and property dependencies on resources that are not in
//     the snapshot are dropped;
//   - the resources are put in dependency order.
//
// Records are copied before they change; snap's list is replaced. Pending
// operations are left as they are.
func Repair(snap *Snapshot, project, stack string) []Fix {
	if snap == nil {
		return nil
	}
	r := &repairer{project: project, stack: stack, present: make(map[resource.URN]bool, len(snap.Resources))}
	for _, res := range snap.Resources {
		r.present[res.URN] = true
		if res.Type == resource.RootStackType && !res.Delete && r.root == "" {
			r.root = res.URN
		}
	}
	list := make([]*Resource, 0, len(snap.Resources))
	for _, res := range snap.Resources {
		list = append(list, r.fixParent(r.fixProvider(r.fixDeletedWith(r.fixDependencies(res)))))
	}
	list = append(r.added, list...)
	sorted := SortDependencyOrder(list)
	if !slices.Equal(sorted, list) {
		r.fixes = append(r.fixes, Fix{What: "put the resources in dependency order (each after the resources it refers to)"})
	}
	snap.Resources = sorted
	return r.fixes
}

// repairer holds what Repair learns about a snapshot.
type repairer struct {
	project, stack string
	present        map[resource.URN]bool
	root           resource.URN // the root stack resource ("" until there is one)
	added          []*Resource
	fixes          []Fix
}

func (r *repairer) fix(urn resource.URN, format string, args ...any) {
	r.fixes = append(r.fixes, Fix{URN: urn, What: fmt.Sprintf(format, args...)})
}

// fixDependencies drops dependencies on resources that are not present.
func (r *repairer) fixDependencies(res *Resource) *Resource {
	missing := func(u resource.URN) bool { return !r.present[u] }
	dangling := slices.ContainsFunc(res.Dependencies, missing)
	for _, deps := range res.PropertyDependencies {
		dangling = dangling || slices.ContainsFunc(deps, missing)
	}
	if !dangling {
		return res
	}
	c := *res
	c.Dependencies = nil
	for _, d := range res.Dependencies {
		if missing(d) {
			r.fix(res.URN, "dropped the dependency of %s on %s, which is not in the state", res.URN, d)
			continue
		}
		c.Dependencies = append(c.Dependencies, d)
	}
	c.PropertyDependencies = make(map[string][]resource.URN, len(res.PropertyDependencies))
	for _, key := range sortedKeys(res.PropertyDependencies) {
		var kept []resource.URN
		for _, d := range res.PropertyDependencies[key] {
			if missing(d) {
				r.fix(res.URN, "dropped the dependency of %s (through property %q) on %s, which is not in the state", res.URN, key, d)
				continue
			}
			kept = append(kept, d)
		}
		if len(kept) > 0 {
			c.PropertyDependencies[key] = kept
		}
	}
	return &c
}

// fixDeletedWith drops a deletedWith naming a resource that is not
// present.
func (r *repairer) fixDeletedWith(res *Resource) *Resource {
	if res.DeletedWith == "" || r.present[res.DeletedWith] {
		return res
	}
	r.fix(res.URN, "dropped the deletedWith of %s, %s, which is not in the state", res.URN, res.DeletedWith)
	c := *res
	c.DeletedWith = ""
	return &c
}

// fixProvider adds back a provider that is not present, or drops a
// reference that names no provider.
func (r *repairer) fixProvider(res *Resource) *Resource {
	if res.Provider == "" {
		return res
	}
	urn := ProviderURN(res.Provider)
	if r.present[urn] {
		return res
	}
	id := strings.TrimPrefix(res.Provider[len(urn):], "::")
	if urn.Valid() && strings.HasPrefix(urn.Type(), "pulumi:providers:") && id != "" && r.ours(urn) {
		r.present[urn] = true
		r.added = append(r.added, &Resource{
			URN: urn, Custom: true, ID: id, Type: urn.Type(),
			Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{},
			Created: res.Created, Modified: res.Modified,
		})
		r.fix(urn, "added the provider %s (ID %s), which %s uses and which was not in the state", urn, id, res.URN)
		return res
	}
	c := *res
	c.Provider = ""
	r.fix(res.URN, "dropped the provider reference %q of %s, which names no provider in the state; the next up sets it again", res.Provider, res.URN)
	return &c
}

// fixParent adds back a missing root stack resource, or re-parents a
// resource whose parent is missing to the root stack.
func (r *repairer) fixParent(res *Resource) *Resource {
	if res.Parent == "" || r.present[res.Parent] {
		return res
	}
	if res.Parent.Type() == resource.RootStackType && r.ours(res.Parent) {
		r.addRoot(res.Parent, res)
		return res
	}
	if r.root == "" {
		r.addRoot(resource.RootURN(r.project, r.stack), res)
	}
	c := *res
	c.Parent = r.root
	r.fix(res.URN, "re-parented %s to the root stack %s: its parent %s is not in the state", res.URN, r.root, res.Parent)
	return &c
}

func (r *repairer) addRoot(urn resource.URN, child *Resource) {
	r.root = urn
	r.present[urn] = true
	r.added = append(r.added, &Resource{
		URN: urn, Type: resource.RootStackType, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{},
		Created: child.Created, Modified: child.Modified,
	})
	r.fix(urn, "added the root stack resource %s, the parent of %s, which was not in the state (its outputs are set again by the next up)", urn, child.URN)
}

// ours reports whether urn belongs to the snapshot's project and stack.
func (r *repairer) ours(urn resource.URN) bool {
	return urn.Project() == r.project && urn.Stack() == r.stack
}

func sortedKeys(m map[string][]resource.URN) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
