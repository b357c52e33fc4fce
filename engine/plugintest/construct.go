package plugintest

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

var _ resource.Constructor = (*Plugin)(nil)

// Construct calls OnConstruct, or refuses: the plugin serves no
// components.
func (p *Plugin) Construct(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error) {
	if p.OnConstruct == nil {
		return resource.ConstructResponse{}, fmt.Errorf("plugintest: the %s plugin serves no components", p.Package())
	}
	return p.OnConstruct(ctx, req)
}
