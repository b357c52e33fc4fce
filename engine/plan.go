package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/source"
)

// defaultProvider returns the default provider of the package of r, its
// step run once (by the first registration that needs it; the others wait
// for it).
func (d *deployment) defaultProvider(ctx context.Context, r *source.Registration) (*runstate.Provider, error) {
	p, err := d.DefaultProviderFor(ctx, resource.Package(r.Type), r.Version, r.PluginDownloadURL)
	if err != nil {
		return nil, err
	}
	if p.Started.CompareAndSwap(false, true) {
		commit, err := d.runProvider(ctx, p)
		if commit != nil {
			d.Mu.Lock()
			commit()
			d.Mu.Unlock()
		}
		p.Err = err
		close(p.Ready)
		if err != nil {
			return nil, err
		}
	}
	<-p.Ready
	if p.Err != nil {
		return nil, fmt.Errorf("%w (the provider %s failed)", source.ErrNotAttempted, p.URN.Name())
	}
	return p, nil
}
