package plugintest

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

var (
	_ resource.Constructor = (*Plugin)(nil)
	_ resource.Caller      = (*Plugin)(nil)
)

// Construct calls OnConstruct, or refuses: the plugin serves no
// components.
func (p *Plugin) Construct(ctx context.Context, req resource.ConstructRequest) (resource.ConstructResponse, error) {
	if p.OnConstruct == nil {
		return resource.ConstructResponse{}, fmt.Errorf("plugintest: the %s plugin serves no components", p.Package())
	}
	return p.OnConstruct(ctx, req)
}

// Call calls OnCall, or refuses: the plugin's components have no methods.
func (p *Plugin) Call(ctx context.Context, req resource.CallRequest) (resource.CallResponse, error) {
	if p.OnCall == nil {
		return resource.CallResponse{}, fmt.Errorf("plugintest: the %s plugin serves no methods", p.Package())
	}
	return p.OnCall(ctx, req)
}
