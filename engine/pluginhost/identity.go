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

// lookupRule returns how to find the resource of an interrupted create (a
// Read without an ID) through a function of its plugin, when its package
// declares a lookup rule and the rule can tell from these inputs.
func (p *plugin) lookupRule(req resource.ReadRequest) (resource.Lookup, bool) {
	rule := p.pool.opts.Lookup[p.pkg]
	if req.ID != "" || rule == nil {
		return resource.Lookup{}, false
	}
	typ := req.Type
	if typ == "" {
		typ = req.URN.Type()
	}
	l, ok := rule(typ, req.Inputs)
	return l, ok && l.Token != "" && l.Found != nil
}

// readLookedUp finds the resource of an interrupted create by calling the
// function its lookup rule names: one match is read by its ID and adopted;
// none (an empty result, or an error the rule says means none) is an empty
// response, so the resource is created again; more than one, or a failed
// call, is an error that names the resource, since making it again could
// make it twice.
func (p *plugin) readLookedUp(ctx context.Context, req resource.ReadRequest, l resource.Lookup) (resource.ReadResponse, error) {
	resp, err := p.invoke(ctx, resource.InvokeRequest{Token: l.Token, Args: l.Args})
	if err == nil && len(resp.Failures) > 0 {
		err = fmt.Errorf("the %s plugin refused the arguments of %s: %s", p.pkg, l.Token, resp.Failures[0].Reason)
	}
	switch {
	case err != nil && l.Absent != nil && l.Absent(err):
		return resource.ReadResponse{}, nil
	case err != nil:
		return resource.ReadResponse{}, fmt.Errorf("looking up %s after an interrupted create: %w", req.URN, err)
	}
	id, err := l.Found(resp.Return)
	if err != nil {
		return resource.ReadResponse{}, fmt.Errorf("looking up %s after an interrupted create (%s): %w", req.URN, l.Token, err)
	}
	if id == "" {
		return resource.ReadResponse{}, nil
	}
	return p.readIdentified(ctx, req, id)
}
