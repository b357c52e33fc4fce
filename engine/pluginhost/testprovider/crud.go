package main

import (
	"context"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Create stores a new resource under a random ID with outputs = inputs +
// the type's computed outputs + generation 1 + createdAt. In preview it
// stores nothing and generation and createdAt are unknown.
func (p *provider) Create(ctx context.Context, req plugin.CreateRequest) (plugin.CreateResponse, error) {
	defer p.enter()()
	typ := p.canon(req.Type)
	if err := knownType(typ); err != nil {
		return plugin.CreateResponse{}, err
	}
	props := req.Properties
	if req.Preview {
		outs, err := outputs(typ, props, resource.MakeComputed(resource.NewNumberProperty(0)), unknownString())
		return plugin.CreateResponse{Properties: outs}, err
	}
	store, err := p.storeDir("Create")
	if err != nil {
		return plugin.CreateResponse{}, err
	}
	p.log(pulumirpc.LogSeverity_DEBUG, req.URN, "testprov: creating %s", req.URN)
	if err := p.pause(ctx, props, "create", req.Timeout, true); err != nil {
		return plugin.CreateResponse{}, err
	}
	now := resource.NewStringProperty(time.Now().UTC().Format(time.RFC3339Nano))
	outs, err := outputs(typ, props, resource.NewNumberProperty(1), now)
	if err != nil {
		return plugin.CreateResponse{}, err
	}
	id := newID(typ)
	if err := p.save(store, id, req.URN, typ, props, outs, isTrue(props, inInitError)); err != nil {
		return plugin.CreateResponse{}, err
	}
	crashIf(props, "create")
	p.warn(req.URN, props)
	if isTrue(props, inInitError) {
		p.log(pulumirpc.LogSeverity_INFO, req.URN, "testprov: created %s (init failing on purpose)", id)
		return plugin.CreateResponse{}, initFailed(id, outs, props)
	}
	p.log(pulumirpc.LogSeverity_INFO, req.URN, "testprov: created %s", id)
	return plugin.CreateResponse{ID: resource.ID(id), Properties: outs}, nil
}

// Update replaces the stored inputs and outputs, counts generation up,
// keeps createdAt and clears a pending init failure. In preview it stores
// nothing and generation is unknown.
func (p *provider) Update(ctx context.Context, req plugin.UpdateRequest) (plugin.UpdateResponse, error) {
	defer p.enter()()
	typ, id, news := p.canon(req.Type), string(req.ID), req.NewInputs
	if err := knownType(typ); err != nil {
		return plugin.UpdateResponse{}, err
	}
	if req.Preview {
		outs, err := outputs(typ, news, resource.MakeComputed(resource.NewNumberProperty(0)), req.OldOutputs["createdAt"])
		return plugin.UpdateResponse{Properties: outs}, err
	}
	store, err := p.storeDir("Update")
	if err != nil {
		return plugin.UpdateResponse{}, err
	}
	p.log(pulumirpc.LogSeverity_DEBUG, req.URN, "testprov: updating %s", id)
	if err := p.pause(ctx, news, "update", req.Timeout, true); err != nil {
		return plugin.UpdateResponse{}, err
	}
	rec, err := readRecord(store, id)
	if err != nil {
		return plugin.UpdateResponse{}, err
	} else if rec == nil {
		return plugin.UpdateResponse{}, status.Errorf(codes.NotFound,
			"testprov: resource %s is not in the store %s (deleted outside testprov?)", id, store)
	}
	old, err := decode(rec.Outputs)
	if err != nil {
		return plugin.UpdateResponse{}, err
	}
	gen := 1.0
	if v := plain(old["generation"]); v.IsNumber() {
		gen = v.NumberValue() + 1
	}
	outs, err := outputs(typ, news, resource.NewNumberProperty(gen), old["createdAt"])
	if err != nil {
		return plugin.UpdateResponse{}, err
	}
	if err := p.save(store, id, req.URN, typ, news, outs, false); err != nil {
		return plugin.UpdateResponse{}, err
	}
	crashIf(news, "update")
	p.warn(req.URN, news)
	p.log(pulumirpc.LogSeverity_INFO, req.URN, "testprov: updated %s", id)
	return plugin.UpdateResponse{Properties: outs}, nil
}

// Read returns the stored ID, inputs and outputs; an empty ID when the file
// is gone. An import (only the ID given) gets the same.
func (p *provider) Read(_ context.Context, req plugin.ReadRequest) (plugin.ReadResponse, error) {
	defer p.enter()()
	store, err := p.storeDir("Read")
	if err != nil {
		return plugin.ReadResponse{}, err
	}
	id := string(req.ID)
	var rec *record
	if id == "" { // an interrupted create: find it by URN
		if rec, err = findRecord(store, string(req.URN)); err == nil && rec == nil {
			return plugin.ReadResponse{}, status.Errorf(codes.NotFound, "testprov: no resource has the URN %s", req.URN)
		}
	} else {
		rec, err = readRecord(store, id)
	}
	if err != nil || rec == nil {
		return plugin.ReadResponse{}, err
	}
	id = rec.ID
	if req.Type != "" && rec.Type != p.canon(req.Type) {
		return plugin.ReadResponse{}, status.Errorf(codes.InvalidArgument,
			"testprov: resource %s is a %s, not a %s", id, rec.Type, req.Type)
	}
	inputs, err := decode(rec.Inputs)
	if err != nil {
		return plugin.ReadResponse{}, err
	}
	outs, err := decode(rec.Outputs)
	if err != nil {
		return plugin.ReadResponse{}, err
	}
	p.log(pulumirpc.LogSeverity_DEBUG, req.URN, "testprov: read %s", id)
	return plugin.ReadResponse{ReadResult: plugin.ReadResult{ID: resource.ID(id), Inputs: inputs, Outputs: outs}}, nil
}

// Delete removes the resource's file (a missing one is fine), after
// sleepMs; crash "delete" exits after the removal.
func (p *provider) Delete(ctx context.Context, req plugin.DeleteRequest) (plugin.DeleteResponse, error) {
	defer p.enter()()
	store, err := p.storeDir("Delete")
	if err != nil {
		return plugin.DeleteResponse{}, err
	}
	props := req.Inputs
	if len(props) == 0 {
		props = req.Outputs
	}
	if err := p.pause(ctx, props, "delete", req.Timeout, false); err != nil {
		return plugin.DeleteResponse{}, err
	}
	if err := deleteRecord(store, string(req.ID)); err != nil {
		return plugin.DeleteResponse{}, err
	}
	crashIf(props, "delete")
	p.log(pulumirpc.LogSeverity_INFO, req.URN, "testprov: deleted %s", req.ID)
	return plugin.DeleteResponse{}, nil
}

// outputs returns inputs + the type's computed outputs + generation and
// createdAt.
func outputs(typ string, inputs resource.PropertyMap, gen, createdAt resource.PropertyValue) (resource.PropertyMap, error) {
	extra, err := kindOutputs(typ, inputs)
	if err != nil {
		return nil, err
	}
	outs := inputs.Copy()
	if outs == nil {
		outs = resource.PropertyMap{}
	}
	for k, v := range extra {
		outs[k] = v
	}
	outs["generation"] = gen
	outs["createdAt"] = createdAt
	return outs, nil
}

// save writes a resource's file.
func (p *provider) save(store, id string, urn resource.URN, typ string, inputs, outs resource.PropertyMap, initFailed bool) error {
	ins, err := encode(inputs)
	if err != nil {
		return err
	}
	outs2, err := encode(outs)
	if err != nil {
		return err
	}
	return writeRecord(store, &record{
		ID: id, Type: typ, URN: string(urn), Inputs: ins, Outputs: outs2, InitFailed: initFailed,
	})
}

// warn logs the warn input, if any, to the engine as a WARNING ("[secret]"
// for a secret one: its plaintext never reaches a log).
func (p *provider) warn(urn resource.URN, props resource.PropertyMap) {
	v := props[inWarn]
	switch {
	case v.IsSecret():
		p.log(pulumirpc.LogSeverity_WARNING, urn, "[secret]")
	case v.IsString() && v.StringValue() != "":
		p.log(pulumirpc.LogSeverity_WARNING, urn, "%s", v.StringValue())
	}
}
