package pluginhost

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/resource"
)

// identify returns the ID of the resource of an interrupted create (a Read
// without an ID) by its package's declared identity rule; ok is false when
// the read has an ID, the package declares no rule, or the rule cannot
// tell from these inputs.
func (p *plugin) identify(req resource.ReadRequest) (string, bool) {
	rule := p.pool.opts.Identity[p.pkg]
	if req.ID != "" || rule == nil {
		return "", false
	}
	typ := req.Type
	if typ == "" {
		typ = req.URN.Type()
	}
	id, ok := rule(typ, req.Inputs)
	return id, ok && id != ""
}

// readIdentified reads the resource of an interrupted create by the ID its
// identity rule gives: found, it is adopted (the response carries its ID);
// absent (an empty ID back), the create did not happen and the empty
// response says so, so the resource is created again.
func (p *plugin) readIdentified(ctx context.Context, req resource.ReadRequest, id string) (resource.ReadResponse, error) {
	req.ID = id
	resp, err := p.Read(ctx, req)
	if status.Code(err) == codes.NotFound {
		return resource.ReadResponse{}, nil // some plugins answer so for an absent ID
	}
	if err != nil {
		return resource.ReadResponse{}, fmt.Errorf("looking up %s by its identity %q after an interrupted create: %w", req.URN, id, err)
	}
	return resp, nil
}
