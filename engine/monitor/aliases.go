package monitor

import (
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/resource"
)

// aliases reads a registration's aliases as Pulumi's engine does: the
// URNs it gives (aliasURNs, and the aliases that are a URN) and its alias
// specs (aliasSpecs), which the engine resolves. An alias URN that is not
// one is refused, naming it.
func aliases(req *pulumirpc.RegisterResourceRequest) ([]resource.URN, []resource.Alias, error) {
	urns := make([]resource.URN, 0, len(req.GetAliasURNs())+len(req.GetAliases()))
	addURN := func(u string) error {
		if !resource.URN(u).Valid() {
			return status.Errorf(codes.InvalidArgument, "%s %q: the alias %q is not a URN", req.GetType(), req.GetName(), u)
		}
		urns = append(urns, resource.URN(u))
		return nil
	}
	for _, u := range req.GetAliasURNs() {
		if err := addURN(u); err != nil {
			return nil, nil, err
		}
	}
	var specs []resource.Alias
	for _, a := range req.GetAliases() {
		spec := a.GetSpec()
		if spec == nil {
			if err := addURN(a.GetUrn()); err != nil {
				return nil, nil, err
			}
			continue
		}
		alias := resource.Alias{Name: spec.GetName(), Type: spec.GetType(), Stack: spec.GetStack(), Project: spec.GetProject(),
			NoParent: spec.GetNoParent()}
		if p := spec.GetParentUrn(); p != "" {
			if !resource.URN(p).Valid() {
				return nil, nil, status.Errorf(codes.InvalidArgument, "%s %q: the parent %q of an alias is not a URN", req.GetType(), req.GetName(), p)
			}
			alias.Parent = resource.URN(p)
		}
		specs = append(specs, alias)
	}
	if len(urns) == 0 {
		urns = nil
	}
	return urns, specs, nil
}
