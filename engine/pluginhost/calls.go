package pluginhost

import (
	"context"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// Package is the package the plugin serves.
func (p *plugin) Package() string { return p.pkg }

// send marshals a map for a resource call with this plugin's secret and
// reference support; nil gives an empty Struct.
func (p *plugin) send(m resource.PropertyMap, unknowns, elide bool) (*structpb.Struct, error) {
	if !p.acceptSecrets {
		p.pool.redact.addSecrets(m)
	}
	return wire.Marshal(m, wire.Options{KeepUnknowns: unknowns, KeepSecrets: p.acceptSecrets,
		KeepResources: p.acceptResources, ElideAssetContents: elide})
}

// sendOpt is send with a nil map left out of the request.
func (p *plugin) sendOpt(m resource.PropertyMap, elide bool) (*structpb.Struct, error) {
	if m == nil {
		return nil, nil
	}
	return p.send(m, false, elide)
}

// recv unmarshals a plugin's answer, re-marking as secret what was secret
// in ins when the plugin does not accept secrets.
func (p *plugin) recv(s *structpb.Struct, reject bool, ins resource.PropertyMap) (resource.PropertyMap, error) {
	m, err := wire.Unmarshal(s, wire.Options{KeepUnknowns: true, RejectUnknowns: reject, KeepSecrets: true, KeepResources: true})
	if err != nil || p.acceptSecrets {
		return m, err
	}
	return wire.Remark(m, ins), nil
}

func typeOf(typ string, urn resource.URN) string {
	if typ != "" {
		return typ
	}
	return urn.Type()
}

// Check validates a resource's inputs. Unknowns are kept: they only occur
// in a preview.
func (p *plugin) Check(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return nil, err
	}
	olds, err := p.send(req.Olds, true, false) // always a Struct, even empty
	if err != nil {
		return nil, err
	}
	news, err := p.send(req.News, true, false)
	if err != nil {
		return nil, err
	}
	resp, err := p.rpc.Check(ctx, &pulumirpc.CheckRequest{Urn: string(req.URN), Name: req.URN.Name(),
		Type: typeOf(req.Type, req.URN), Olds: olds, News: news, RandomSeed: req.RandomSeed})
	if err != nil {
		return nil, p.callError(ctx, "check", req.URN, err)
	}
	ins, err := p.checked(resp, req, "check")
	if err != nil || p.acceptSecrets {
		return ins, err
	}
	return wire.Remark(ins, req.News), nil
}

// checked reads a Check or CheckConfig answer (secrets not re-marked).
func (p *plugin) checked(resp *pulumirpc.CheckResponse, req resource.CheckRequest, op string) (resource.PropertyMap, error) {
	if fs := resp.GetFailures(); len(fs) > 0 {
		e := &resource.CheckFailuresError{}
		for _, f := range fs {
			e.Failures = append(e.Failures, resource.CheckFailure{Property: f.GetProperty(), Reason: p.pool.redact.apply(f.GetReason())})
		}
		return nil, e
	}
	ins, err := wire.Unmarshal(resp.GetInputs(), wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
	if err != nil {
		return nil, fmt.Errorf("the %s plugin's %s of %s returned %w", p.pkg, op, req.URN, err)
	}
	return ins, nil
}

// Diff compares a resource's state with its new inputs.
func (p *plugin) Diff(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.DiffResponse{}, err
	}
	wreq, err := p.diffRequest(req)
	if err != nil {
		return resource.DiffResponse{}, err
	}
	resp, err := p.rpc.Diff(ctx, wreq)
	if err != nil {
		return resource.DiffResponse{}, p.callError(ctx, "diff", req.URN, err)
	}
	return diffResponse(resp, req), nil
}

// diffRequest marshals a Diff or DiffConfig request, asset contents elided.
func (p *plugin) diffRequest(req resource.DiffRequest) (*pulumirpc.DiffRequest, error) {
	olds, err := p.send(req.OldOutputs, true, true)
	if err != nil {
		return nil, err
	}
	oldIns, err := p.send(req.OldInputs, true, true)
	if err != nil {
		return nil, err
	}
	news, err := p.send(req.NewInputs, true, true)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.DiffRequest{Id: req.ID, Urn: string(req.URN), Name: req.URN.Name(), Type: typeOf(req.Type, req.URN),
		Olds: olds, OldInputs: oldIns, News: news, IgnoreChanges: req.IgnoreChanges}, nil
}

// Create creates a resource (with Preview, predicts its outputs).
func (p *plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.CreateResponse{}, err
	}
	if req.Preview && !p.supportsPreview {
		return resource.CreateResponse{Outputs: req.Inputs}, nil
	}
	props, err := p.send(req.Inputs, req.Preview, false)
	if err != nil {
		return resource.CreateResponse{}, err
	}
	resp, err := p.rpc.Create(ctx, &pulumirpc.CreateRequest{Urn: string(req.URN), Name: req.URN.Name(),
		Type: typeOf(req.Type, req.URN), Properties: props, Timeout: req.Timeout.Seconds(), Preview: req.Preview})
	if err != nil {
		return resource.CreateResponse{}, p.resourceError(ctx, "create", req.URN, err, req.Inputs, !req.Preview)
	}
	if resp.GetId() == "" && !req.Preview {
		return resource.CreateResponse{}, fmt.Errorf("the %s plugin broke the provider protocol: its create of %s returned no ID", p.pkg, req.URN)
	}
	outs, err := p.recv(resp.GetProperties(), !req.Preview, req.Inputs)
	if err != nil && !req.Preview {
		// The resource exists: record it under its ID, with its inputs as
		// outputs, so that it does not leak.
		return resource.CreateResponse{}, &resource.InitError{ID: resp.GetId(), Outputs: req.Inputs,
			Reasons: []string{fmt.Sprintf("the %s plugin created it but returned %v", p.pkg, err)}}
	}
	if err != nil {
		return resource.CreateResponse{}, fmt.Errorf("the %s plugin's preview of the create of %s returned %w", p.pkg, req.URN, err)
	}
	return resource.CreateResponse{ID: resp.GetId(), Outputs: outs}, nil
}

// Update changes a resource in place (with Preview, predicts its outputs).
func (p *plugin) Update(ctx context.Context, req resource.UpdateRequest) (resource.UpdateResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.UpdateResponse{}, err
	}
	if req.Preview && !p.supportsPreview {
		return resource.UpdateResponse{Outputs: req.NewInputs}, nil
	}
	olds, err := p.send(req.OldOutputs, false, true)
	if err != nil {
		return resource.UpdateResponse{}, err
	}
	oldIns, err := p.send(req.OldInputs, false, true)
	if err != nil {
		return resource.UpdateResponse{}, err
	}
	news, err := p.send(req.NewInputs, req.Preview, false)
	if err != nil {
		return resource.UpdateResponse{}, err
	}
	resp, err := p.rpc.Update(ctx, &pulumirpc.UpdateRequest{Id: req.ID, Urn: string(req.URN), Name: req.URN.Name(),
		Type: typeOf(req.Type, req.URN), Olds: olds, OldInputs: oldIns, News: news, Timeout: req.Timeout.Seconds(),
		IgnoreChanges: req.IgnoreChanges, Preview: req.Preview})
	if err != nil {
		return resource.UpdateResponse{}, p.resourceError(ctx, "update", req.URN, err, req.NewInputs, !req.Preview)
	}
	outs, err := p.recv(resp.GetProperties(), !req.Preview, req.NewInputs)
	if err != nil {
		return resource.UpdateResponse{}, fmt.Errorf("the %s plugin updated %s but returned %w", p.pkg, req.URN, err)
	}
	return resource.UpdateResponse{Outputs: outs}, nil
}

// Read reads a resource back; an import sends only its ID. Without an ID
// (an interrupted create), a package that declares its identity rule
// (PoolOptions.Identity) is read by the ID the rule gives, one that
// declares a lookup rule (PoolOptions.Lookup) by the ID its function
// finds; otherwise the plugin may find the resource from its URN and
// inputs, or answer NotFound when it looked and there is none (the create
// did not happen); an empty answer or another error is
// resource.ErrNotRecognizable, since most plugins cannot look without an ID
// and a create must not be made twice.
func (p *plugin) Read(ctx context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	if err := p.waitConfigured(ctx); err != nil {
		return resource.ReadResponse{}, err
	}
	if id, ok := p.identify(req); ok {
		return p.readIdentified(ctx, req, id)
	}
	if l, ok := p.lookupRule(req); ok {
		return p.readLookedUp(ctx, req, l)
	}
	props, err := p.sendOpt(req.Outputs, true)
	if err != nil {
		return resource.ReadResponse{}, err
	}
	ins, err := p.sendOpt(req.Inputs, true)
	if err != nil {
		return resource.ReadResponse{}, err
	}
	resp, err := p.rpc.Read(ctx, &pulumirpc.ReadRequest{Id: req.ID, Urn: string(req.URN), Name: req.URN.Name(),
		Type: typeOf(req.Type, req.URN), Properties: props, Inputs: ins, Timeout: req.Timeout.Seconds()})
	switch {
	case req.ID == "" && status.Code(err) == codes.NotFound:
		return resource.ReadResponse{}, nil // the plugin looked: the create did not happen
	case req.ID == "" && (err != nil || resp.GetId() == ""):
		// An interrupted create: most plugins cannot find a resource
		// without its ID, and "not found" must not make it be created twice.
		return resource.ReadResponse{}, p.unrecognizable(ctx, req.URN, err)
	case err != nil:
		return resource.ReadResponse{}, p.resourceError(ctx, "read", req.URN, err, req.Outputs, false)
	case resp.GetId() == "":
		return resource.ReadResponse{}, nil // gone
	}
	out := resource.ReadResponse{ID: resp.GetId(), Inputs: req.Inputs} // no inputs: the old ones are kept
	if out.Outputs, err = p.recv(resp.GetProperties(), true, req.Outputs); err == nil && resp.GetInputs() != nil {
		out.Inputs, err = p.recv(resp.GetInputs(), true, req.Inputs)
		out.Inputs = wire.RestoreAssets(wire.RestoreAssets(out.Inputs, req.Inputs), req.Outputs)
	}
	if err != nil {
		return resource.ReadResponse{}, fmt.Errorf("the %s plugin's read of %s returned %w", p.pkg, req.URN, err)
	}
	out.Outputs = wire.RestoreAssets(wire.RestoreAssets(out.Outputs, req.Outputs), req.Inputs)
	return out, nil
}

// unrecognizable is the error of a Read without an ID that found nothing.
func (p *plugin) unrecognizable(ctx context.Context, urn resource.URN, err error) error {
	if err != nil {
		err = p.callError(ctx, "read", urn, err)
		return fmt.Errorf("the %s plugin reads %s: %w (%w)", p.pkg, urn, resource.ErrNotRecognizable, err)
	}
	return fmt.Errorf("the %s plugin reads %s: %w", p.pkg, urn, resource.ErrNotRecognizable)
}

// Delete deletes a resource, sending its old outputs and inputs.
func (p *plugin) Delete(ctx context.Context, req resource.DeleteRequest) error {
	if err := p.waitConfigured(ctx); err != nil {
		return err
	}
	props, err := p.send(req.Outputs, false, true)
	if err != nil {
		return err
	}
	ins, err := p.send(req.Inputs, false, true)
	if err != nil {
		return err
	}
	_, err = p.rpc.Delete(ctx, &pulumirpc.DeleteRequest{Id: req.ID, Urn: string(req.URN), Name: req.URN.Name(),
		Type: typeOf(req.Type, req.URN), Properties: props, OldInputs: ins, Timeout: req.Timeout.Seconds()})
	if err != nil {
		return p.mutationError(ctx, "delete", req.URN, err)
	}
	return nil
}

// resourceError reads ErrorResourceInitFailed (a partial success) into a
// *resource.InitError; other errors go through mutationError for a call
// that changes the world, callError otherwise.
func (p *plugin) resourceError(ctx context.Context, op string, urn resource.URN, err error, ins resource.PropertyMap, mutating bool) error {
	for _, d := range status.Convert(err).Details() {
		f, ok := d.(*pulumirpc.ErrorResourceInitFailed)
		if !ok {
			continue
		}
		e := &resource.InitError{ID: f.GetId(), Reasons: f.GetReasons()}
		outs, uerr := p.recv(f.GetProperties(), false, ins)
		if uerr == nil && f.GetInputs() != nil {
			e.Inputs, uerr = p.recv(f.GetInputs(), false, ins)
		}
		switch {
		case uerr != nil && e.ID == "":
			return fmt.Errorf("the %s plugin's %s of %s half-failed and returned %w", p.pkg, op, urn, uerr)
		case uerr != nil: // the resource exists: recorded with its inputs as outputs
			e.Outputs, e.Inputs = ins, nil
			e.Reasons = append(e.Reasons, fmt.Sprintf("the %s plugin's answer was unreadable: %v", p.pkg, uerr))
		default:
			e.Outputs = outs
		}
		return e
	}
	if mutating {
		return p.mutationError(ctx, op, urn, err)
	}
	return p.callError(ctx, op, urn, err)
}
