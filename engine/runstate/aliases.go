package runstate

import (
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
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
