package monitor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/runnerhq/runner/engine/resource"
)

// transformResource passes a registration through the transforms Pulumi's
// engine runs for it (its own, then each ancestor's, then the stack's) and
// rewrites the request with the properties and options they give, before
// anything else reads it. It returns the registration's own transforms,
// which record keeps for its descendants.
func (m *monitor) transformResource(ctx context.Context, req *pulumirpc.RegisterResourceRequest) ([]callback, error) {
	own, err := m.ownTransforms(req)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the transforms of %s %q: %v", req.GetType(), req.GetName(), err)
	}
	chain := m.tf.chain(own, resource.URN(req.GetParent()))
	if len(chain) == 0 {
		return own, nil
	}
	props, opts := req.GetObject(), transformOptions(req)
	if props == nil {
		props = &structpb.Struct{}
	}
	for _, c := range chain {
		var resp pulumirpc.TransformResponse
		err := c.call(ctx, &pulumirpc.TransformRequest{Type: req.GetType(), Name: req.GetName(), Custom: req.GetCustom(),
			Parent: req.GetParent(), Properties: props, Options: opts}, &resp)
		if err != nil {
			return nil, transformFailed(req, err)
		}
		if resp.GetProperties() != nil {
			props = resp.GetProperties()
		}
		if resp.GetOptions() != nil {
			opts = resp.GetOptions()
		}
	}
	applyTransform(req, props, opts)
	return own, nil
}

// transformFailed is the status of a registration whose transform failed:
// it names the resource and gives the program's own message.
func transformFailed(req *pulumirpc.RegisterResourceRequest, err error) error {
	if errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled {
		return status.Errorf(codes.Canceled, "a transform of %s %q was cancelled", req.GetType(), req.GetName())
	}
	return status.Errorf(codes.Unknown, "a transform of %s %q failed: %s", req.GetType(), req.GetName(), status.Convert(err).Message())
}

// invokeTransformFailed is the error of an invoke whose transform failed:
// it names the invoke and gives the program's own message (not the gRPC
// status's text); cancelled, it is context.Canceled.
func invokeTransformFailed(tok string, err error) error {
	if errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled {
		return fmt.Errorf("an invoke transform of %s was cancelled: %w", tok, context.Canceled)
	}
	return fmt.Errorf("an invoke transform of %s failed: %s", tok, status.Convert(err).Message())
}

// transformOptions are the options of a registration a transform may
// change, as Pulumi's engine gives them: a custom resource's or remote
// component's provider resolved from its providers when not given.
func transformOptions(req *pulumirpc.RegisterResourceRequest) *pulumirpc.TransformResourceOptions {
	provider := req.GetProvider()
	if provider == "" && (req.GetCustom() || req.GetRemote()) {
		provider = req.GetProviders()[resource.Package(req.GetType())]
	}
	var dbr *bool
	if req.GetDeleteBeforeReplaceDefined() || req.GetDeleteBeforeReplace() {
		v := req.GetDeleteBeforeReplace()
		dbr = &v
	}
	aliases := make([]*pulumirpc.Alias, 0, len(req.GetAliasURNs())+len(req.GetAliases()))
	for _, u := range req.GetAliasURNs() {
		aliases = append(aliases, &pulumirpc.Alias{Alias: &pulumirpc.Alias_Urn{Urn: u}})
	}
	aliases = append(aliases, req.GetAliases()...)
	return &pulumirpc.TransformResourceOptions{
		DependsOn: req.GetDependencies(), Protect: req.Protect, IgnoreChanges: req.GetIgnoreChanges(),
		ReplaceOnChanges: req.GetReplaceOnChanges(), Version: req.GetVersion(), Aliases: aliases,
		Provider: provider, Providers: req.GetProviders(), CustomTimeouts: req.GetCustomTimeouts(),
		PluginDownloadUrl: req.GetPluginDownloadURL(), RetainOnDelete: req.RetainOnDelete,
		DeletedWith: req.GetDeletedWith(), DeleteBeforeReplace: dbr,
		AdditionalSecretOutputs: req.GetAdditionalSecretOutputs(), PluginChecksums: req.GetPluginChecksums(),
		Hooks: req.GetHooks(), Import: req.GetImportId(), HideDiff: req.GetHideDiffs(),
		ReplaceWith: req.GetReplaceWith(), ReplacementTrigger: req.GetReplacementTrigger(),
	}
}

// applyTransform rewrites a registration with the properties and options
// its transforms gave. The type, name and parent stay (a transform cannot
// change them); a property's dependencies stay while the property does,
// and count among the resource's dependencies with those the options name.
func applyTransform(req *pulumirpc.RegisterResourceRequest, props *structpb.Struct, o *pulumirpc.TransformResourceOptions) {
	req.Object = props
	req.Protect, req.RetainOnDelete = o.Protect, o.RetainOnDelete
	req.IgnoreChanges, req.ReplaceOnChanges = o.GetIgnoreChanges(), o.GetReplaceOnChanges()
	req.Version, req.PluginDownloadURL, req.PluginChecksums = o.GetVersion(), o.GetPluginDownloadUrl(), o.GetPluginChecksums()
	req.Provider, req.Providers, req.CustomTimeouts = o.GetProvider(), o.GetProviders(), o.GetCustomTimeouts()
	req.DeletedWith, req.AdditionalSecretOutputs = o.GetDeletedWith(), o.GetAdditionalSecretOutputs()
	req.DeleteBeforeReplace, req.DeleteBeforeReplaceDefined = o.GetDeleteBeforeReplace(), o.DeleteBeforeReplace != nil
	req.Hooks, req.ImportId, req.HideDiffs = o.GetHooks(), o.GetImport(), o.GetHideDiff()
	req.ReplaceWith, req.ReplacementTrigger = o.GetReplaceWith(), o.GetReplacementTrigger()
	req.AliasURNs, req.Aliases = nil, nil
	for _, a := range o.GetAliases() {
		if u, ok := a.GetAlias().(*pulumirpc.Alias_Urn); ok {
			req.AliasURNs = append(req.AliasURNs, u.Urn)
		} else {
			req.Aliases = append(req.Aliases, a)
		}
	}
	seen := make(map[string]bool, len(o.GetDependsOn()))
	req.Dependencies = nil
	add := func(urns []string) {
		for _, u := range urns {
			if !seen[u] {
				seen[u] = true
				req.Dependencies = append(req.Dependencies, u)
			}
		}
	}
	add(o.GetDependsOn())
	for _, k := range slices.Sorted(maps.Keys(req.GetPropertyDependencies())) {
		if _, ok := props.GetFields()[k]; !ok {
			delete(req.PropertyDependencies, k)
			continue
		}
		add(req.PropertyDependencies[k].GetUrns())
	}
}

// hooked says whether a registration names any resource hook.
func hooked(h *pulumirpc.RegisterResourceRequest_ResourceHooksBinding) bool {
	return len(h.GetBeforeCreate())+len(h.GetAfterCreate())+len(h.GetBeforeUpdate())+len(h.GetAfterUpdate())+
		len(h.GetBeforeDelete())+len(h.GetAfterDelete())+len(h.GetOnError()) > 0
}
