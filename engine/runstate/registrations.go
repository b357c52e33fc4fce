package runstate

import (
	"context"
	"fmt"
	"strings"

	"github.com/runnerhq/runner/engine/plan"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
	"github.com/runnerhq/runner/engine/state"
)

// Admit records a registration and finds its recorded state (under its
// URN, else under one of its aliases). After a failed step, or once the
// operation is canceled, registrations are not attempted.
func (d *State) Admit(ctx context.Context, r *source.Registration) (*Declared, error) {
	if ctx.Err() != nil || d.Stopped.Load() {
		return nil, source.ErrNotAttempted
	}
	dr := &Declared{R: r, st: d, Deps: r.Dependencies, PropDeps: r.PropertyDependencies}
	d.regMu.Lock()
	defer d.regMu.Unlock()
	if d.registered[r.URN] != nil {
		err := fmt.Errorf("%s is registered twice; give one of the two resources another name", r.URN)
		d.Stop(err)
		return nil, err
	}
	if r.DeletedWith != "" && d.registered[r.DeletedWith] == nil {
		err := fmt.Errorf("%s is deleted with %s, which is not a resource registered before it; deletedWith names a resource the program registered earlier, and never the resource itself", r.URN, r.DeletedWith)
		d.Stop(err)
		return nil, err
	}
	d.registered[r.URN] = dr
	if err := d.takeOld(dr); err != nil {
		d.Stop(err)
		return nil, err
	}
	return dr, nil
}

// takeOld finds dr's old record: under its URN, else under one of its
// aliases. A record is taken once: two registrations naming one former
// resource (by its URN and by an alias, or by two aliases) are refused,
// as Pulumi's engine refuses them, rather than the second creating a new
// resource beside it. Called with regMu held.
func (d *State) takeOld(dr *Declared) error {
	r := dr.R
	if old := d.OldLive[r.URN]; old != nil {
		if by := d.claimed[old]; by != "" {
			return fmt.Errorf("%s took the state of %s by an alias, and %s is registered too; only one resource can take that state: remove the alias or rename one of the two", by, r.URN, r.URN)
		}
		dr.Old = old
	}
	aliases := d.aliasesOf(r)
	for _, a := range aliases {
		old := d.OldLive[a]
		if dr.Old != nil || old == nil || a == r.URN {
			continue
		}
		if d.registered[a] != nil {
			return fmt.Errorf("%s names %s as an alias, but %s is registered in this run itself; only one resource can take its state: remove the alias or rename one of the two", r.URN, a, a)
		}
		if by := d.claimed[old]; by != "" {
			return fmt.Errorf("two resources, %s and %s, name %s as an alias; only one can take its state: remove one of the aliases", by, r.URN, a)
		}
		dr.Old = old
	}
	if dr.Old != nil && (len(aliases) > 0 || d.anyAliased) {
		d.claimed[dr.Old] = r.URN
		d.anyAliased = d.anyAliased || dr.Old.URN != r.URN
		if dr.Old.URN != r.URN {
			d.noteAliased(r.URN, dr.Old.URN)
		}
	}
	return nil
}

// Stop records a failed step: later registrations are not attempted.
func (d *State) Stop(err error) {
	d.Stopped.Store(true)
	d.Mu.Lock()
	d.StepErrs = append(d.StepErrs, err)
	d.Mu.Unlock()
}

// Registered returns the registration of urn in this run (nil: none).
func (d *State) Registered(urn resource.URN) *Declared {
	d.regMu.Lock()
	defer d.regMu.Unlock()
	return d.registered[urn]
}

// RegisteredURNs returns the URNs registered in this run.
func (d *State) RegisteredURNs() []resource.URN {
	d.regMu.Lock()
	defer d.regMu.Unlock()
	urns := make([]resource.URN, 0, len(d.registered))
	for urn := range d.registered {
		urns = append(urns, urn)
	}
	return urns
}

// NumRegistered returns how many resources are registered in this run.
func (d *State) NumRegistered() int {
	d.regMu.Lock()
	defer d.regMu.Unlock()
	return len(d.registered)
}

// LockRegistrations holds the registrations (and Mu) still until unlock
// is called; registered says whether a URN is registered meanwhile.
func (d *State) LockRegistrations() (registered func(resource.URN) bool, unlock func()) {
	d.Mu.Lock()
	d.regMu.Lock()
	return func(urn resource.URN) bool { return d.registered[urn] != nil }, func() {
		d.regMu.Unlock()
		d.Mu.Unlock()
	}
}

// Reserve makes room for n registrations.
func (d *State) Reserve(n int) {
	d.regMu.Lock()
	if len(d.registered) == 0 {
		d.registered = make(map[resource.URN]*Declared, n)
	}
	d.regMu.Unlock()
	d.Mu.Lock()
	defer d.Mu.Unlock()
	if len(d.News) > 0 {
		return
	}
	d.News = make([]*state.Resource, 0, n+len(d.Old.Resources)/8+1)
	if d.DryRun {
		d.Plan = make([]plan.Step, 0, n)
	}
}

// MarkAlong records resources replaced along with a delete-before-replace
// replacement of a resource they depend on.
func (d *State) MarkAlong(found []*state.Resource) {
	d.alongMu.Lock()
	defer d.alongMu.Unlock()
	for _, r := range found {
		d.along[r.URN] = true
		d.anyAlong.Store(true)
	}
}

// ReplacedAlong reports whether the resource is replaced along with a
// delete-before-replace replacement of a resource it depends on.
func (d *State) ReplacedAlong(urn resource.URN) bool {
	if !d.anyAlong.Load() {
		return false
	}
	d.alongMu.Lock()
	defer d.alongMu.Unlock()
	return d.along[urn]
}

// ProviderURN returns the URN part of a provider reference "<URN>::<ID>".
func ProviderURN(ref string) resource.URN {
	if i := strings.LastIndex(ref, "::"); i >= 0 {
		return resource.URN(ref[:i])
	}
	return ""
}
