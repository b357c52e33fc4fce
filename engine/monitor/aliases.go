package monitor

import (
	"context"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
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

// legacyNodeAliases rewrites, in place, the alias specs of a registration
// from an older Node.js SDK (one that does not say its specs are proper,
// aliasSpecs): those set Parent "" for the resource's own parent and
// NoParent for none, the reverse of the protocol, and Pulumi's engine
// reads them so too.
func legacyNodeAliases(ctx context.Context, req *pulumirpc.RegisterResourceRequest) {
	if req.GetAliasSpecs() || len(req.GetAliases()) == 0 || !fromNode(ctx) {
		return
	}
	for i, a := range req.GetAliases() {
		s := a.GetSpec()
		if s == nil {
			continue
		}
		spec := &pulumirpc.Alias_Spec{Name: s.GetName(), Type: s.GetType(), Stack: s.GetStack(), Project: s.GetProject()}
		switch p := s.GetParent().(type) {
		case *pulumirpc.Alias_Spec_ParentUrn:
			if p.ParentUrn == "" {
				spec.Parent = &pulumirpc.Alias_Spec_NoParent{NoParent: true}
			} else {
				spec.Parent = p
			}
		case *pulumirpc.Alias_Spec_NoParent:
			if !p.NoParent {
				spec.Parent = p
			}
		default:
			spec.Parent = &pulumirpc.Alias_Spec_NoParent{NoParent: true}
		}
		req.Aliases[i] = &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: spec}}
	}
}

// fromNode says whether a request comes from the Node.js SDK: its
// pulumi-runtime header, else its gRPC user agent.
func fromNode(ctx context.Context) bool {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return false
	}
	if rt, ok := md["pulumi-runtime"]; ok {
		return len(rt) == 1 && rt[0] == "nodejs"
	}
	ua := md["user-agent"]
	return len(ua) == 1 && strings.HasPrefix(ua[0], "grpc-node-js/")
}
