package runstate

import (
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// aliasesOf returns the URNs under which r's recorded state may be found,
// as Pulumi's engine generates them: its alias URNs, its alias specs
// resolved (resource.Alias.URNOf) and, when its parent took an old record
// by an alias, the URN it had under that parent's former URN, its own
// name and each alias's. Called with regMu held.
func (d *State) aliasesOf(r *source.Registration) []resource.URN {
	parentFrom := d.aliasedFrom[r.Parent]
	if len(r.AliasSpecs) == 0 && parentFrom == "" {
		return r.Aliases
	}
	former := func(u resource.URN) resource.URN { return d.aliasedFrom[u] }
	var out []resource.URN
	seen := map[resource.URN]bool{}
	add := func(u resource.URN) {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, a := range r.Aliases {
		add(a)
	}
	for _, a := range r.AliasSpecs {
		add(a.URNOf(r.Name, r.Type, r.Parent, d.Project, d.Stack, former))
	}
	if parentFrom == "" {
		return out
	}
	own := append([]resource.URN{r.URN}, out...)
	for _, u := range own {
		add(d.underFormerParent(u.Type(), u.Name(), r.Parent.Name(), parentFrom))
	}
	return out
}

// underFormerParent is the URN a child of type typ and name had under
// its parent's former URN parentFrom, as Pulumi's engine derives it
// (inheritedChildAlias): a name that starts with the parent's name
// (parentName) starts with the parent's former name instead.
func (d *State) underFormerParent(typ, name, parentName string, parentFrom resource.URN) resource.URN {
	if rest, ok := strings.CutPrefix(name, parentName); ok {
		name = parentFrom.Name() + rest
	}
	return resource.NewURN(d.Stack, d.Project, parentFrom.QualifiedType(), typ, name)
}

// noteAliased records that the registration urn took the old record
// named old by an alias. Called with regMu held.
func (d *State) noteAliased(urn, old resource.URN) {
	if d.aliasedFrom == nil {
		d.aliasedFrom = map[resource.URN]resource.URN{}
	}
	d.aliasedFrom[urn] = old
}

// renamedByAliases maps the former URN of each resource that took its old
// record by an alias this operation to its URN now.
func (d *State) renamedByAliases() map[resource.URN]resource.URN {
	d.regMu.Lock()
	defer d.regMu.Unlock()
	if len(d.aliasedFrom) == 0 {
		return nil
	}
	renamed := make(map[resource.URN]resource.URN, len(d.aliasedFrom))
	for now, former := range d.aliasedFrom {
		renamed[former] = now
	}
	return renamed
}

// followRenames rewrites, in the records of list, references (parent,
// dependencies, property dependencies, deletedWith, provider) to a former
// URN in renamed to the URN it has now, as Pulumi's engine does
// (Snapshot.NormalizeURNReferences): a record an operation kept as it was
// (a failed up stopped before its registration) keeps depending on, and
// being deleted with, the resource it referred to, renamed, rather than
// losing those as dangling. A former URN that a record of list holds again
// is left alone. Records are copied before they change.
func followRenames(list []*state.Resource, renamed map[resource.URN]resource.URN) {
	if len(renamed) == 0 {
		return
	}
	for _, r := range list {
		delete(renamed, r.URN)
	}
	to := func(u resource.URN) (resource.URN, bool) {
		if n, ok := renamed[u]; ok {
			return n, true
		}
		return u, false
	}
	for i, r := range list {
		c, changed := *r, false
		var ok bool
		c.Parent, ok = to(r.Parent)
		changed = changed || ok
		c.DeletedWith, ok = to(r.DeletedWith)
		changed = changed || ok
		if at := strings.LastIndex(r.Provider, "::"); at > 0 {
			if n, ok := to(resource.URN(r.Provider[:at])); ok {
				c.Provider, changed = string(n)+r.Provider[at:], true
			}
		}
		c.Dependencies, ok = renameAll(r.Dependencies, to)
		changed = changed || ok
		if len(r.PropertyDependencies) > 0 {
			pd := make(map[string][]resource.URN, len(r.PropertyDependencies))
			for k, deps := range r.PropertyDependencies {
				if pd[k], ok = renameAll(deps, to); ok {
					changed = true
				}
			}
			c.PropertyDependencies = pd
		}
		if changed {
			list[i] = &c
		}
	}
}

// renameAll returns urns with to applied (urns itself when none changes)
// and whether one did.
func renameAll(urns []resource.URN, to func(resource.URN) (resource.URN, bool)) ([]resource.URN, bool) {
	var out []resource.URN
	for i, u := range urns {
		n, ok := to(u)
		if ok && out == nil {
			out = append(make([]resource.URN, 0, len(urns)), urns[:i]...)
		}
		if out != nil {
			out = append(out, n)
		}
	}
	if out == nil {
		return urns, false
	}
	return out, true
}
