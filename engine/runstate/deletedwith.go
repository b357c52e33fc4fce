package runstate

import (
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// MarkDeleting records resources this operation deletes (a destroy's, an
// up's condemned ones, a delete-before-replace replacement's old one and
// its dependents), before their deletes run: a resource deleted with one
// of them (DeletedWithDeleting) is not deleted by its plugin, as Pulumi's
// engine marks its deletes.
func (d *State) MarkDeleting(urns ...resource.URN) {
	d.doomMu.Lock()
	defer d.doomMu.Unlock()
	if d.deleting == nil {
		d.deleting = make(map[resource.URN]bool, len(urns))
	}
	for _, u := range urns {
		d.deleting[u] = true
	}
}

// DeletedWithDeleting reports whether res is deleted with a resource this
// operation deletes too (its deletedWith): that delete deletes it, so its
// own plugin is not called.
func (d *State) DeletedWithDeleting(res *state.Resource) bool {
	if res.DeletedWith == "" {
		return false
	}
	d.doomMu.Lock()
	defer d.doomMu.Unlock()
	return d.deleting[res.DeletedWith]
}

// MarkReplacing records a resource this operation replaces (its step
// decided as a replacement).
func (d *State) MarkReplacing(urn resource.URN) {
	d.doomMu.Lock()
	defer d.doomMu.Unlock()
	if d.replacing == nil {
		d.replacing = map[resource.URN]bool{}
	}
	d.replacing[urn] = true
}

// Replacing reports whether this operation replaces the resource urn (its
// step was decided as a replacement before).
func (d *State) Replacing(urn resource.URN) bool {
	d.doomMu.Lock()
	defer d.doomMu.Unlock()
	return d.replacing[urn]
}
