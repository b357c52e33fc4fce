package engine

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/runstate"
	"github.com/runnerhq/runner/engine/stepgen"
)

// CheckStackConfig checks that plugin accepts the configuration its
// default provider would get from config (the stack config, "namespace:key"
// -> value) on stack: CheckConfig, then Configure, as a deployment does
// before its first step, but outside any project and without recording
// anything. A refusal is the plugin's error (*resource.ConfigureError,
// *resource.MissingConfigError or *resource.CheckFailuresError); unknown
// config values are not checked.
func CheckStackConfig(ctx context.Context, plugin resource.Configurable, stack string, config map[string]any) error {
	pkg := plugin.Package()
	name, err := runstate.DefaultProviderName(plugin.Version())
	if err != nil {
		return fmt.Errorf("the %s plugin: %w", pkg, err)
	}
	news, err := stepgen.ProviderInputs(config, pkg, plugin.Version())
	if err != nil {
		return err
	}
	if resource.ContainsComputed(map[string]any(news)) {
		return nil
	}
	urn := resource.NewURN(stack, pkg, "", runstate.ProviderTypePrefix+pkg, name)
	checked, err := plugin.CheckConfig(ctx, resource.CheckRequest{URN: urn, Type: runstate.ProviderTypePrefix + pkg, Olds: resource.PropertyMap{}, News: news})
	if err != nil {
		return err
	}
	_, err = plugin.Configure(ctx, resource.ConfigureRequest{URN: urn, ID: runstate.NewUUID(), Inputs: checked})
	return err
}
