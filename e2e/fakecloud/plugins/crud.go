package plugins

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// gen hands a resource's computed outputs their random values: an update
// keeps the old value, a preview without one has an unknown.
type gen struct {
	olds    resource.PropertyMap // the old outputs; nil at create
	preview bool
}

// keep returns the old output at path (dot-separated keys) when there is
// one, an unknown in preview, else make().
func (g *gen) keep(path string, make func() resource.PropertyValue) resource.PropertyValue {
	v := resource.NewObjectProperty(g.olds)
	for _, k := range strings.Split(path, ".") {
		if v = Plain(v); !v.IsObject() {
			v = resource.NewNullProperty()
			break
		}
		v = v.ObjectValue()[resource.PropertyKey(k)]
	}
	switch {
	case !v.IsNull():
		return v
	case g.preview:
		return resource.MakeComputed(resource.NewStringProperty(""))
	}
	return make()
}

// outputs returns every output of typ's contract: the inputs echoed, the
// cloud's computed values, null for the rest; secret outputs are secret.
func (p *provider) outputs(typ string, spec ResourceSpec, g *gen, inputs resource.PropertyMap) resource.PropertyMap {
	outs := resource.PropertyMap{}
	for _, k := range spec.Outputs {
		if v, ok := inputs[resource.PropertyKey(k)]; ok {
			outs[resource.PropertyKey(k)] = v
		} else {
			outs[resource.PropertyKey(k)] = resource.NewNullProperty()
		}
	}
	p.cloud.outputs(typ, g, inputs, outs)
	listed := map[resource.PropertyKey]bool{}
	for _, k := range spec.Outputs {
		listed[resource.PropertyKey(k)] = true
	}
	for k := range outs {
		if !listed[k] {
			delete(outs, k) // what the contract does not list, the real provider does not return
		}
	}
	for _, k := range spec.SecretOutputs {
		if v := outs[resource.PropertyKey(k)]; !v.IsNull() && !v.IsSecret() {
			outs[resource.PropertyKey(k)] = resource.MakeSecret(v)
		}
	}
	return outs
}

// idOutputs is a cloud with outputs that repeat a new resource's ID.
type idOutputs interface {
	idOutputs(typ, id string, outs resource.PropertyMap)
}

// accountLimiter is a cloud whose account holds a limited number of some
// resource (DigitalOcean's one container registry): the create fails once
// the account has them, as the real call would.
type accountLimiter interface {
	limit(s *store, typ string, inputs resource.PropertyMap) error
}

// idSharer is a cloud with resources whose ID is not unique (what the
// ID names is not the resource: DigitalOcean's registry credentials are
// named by their registry): another create of the same ID makes new ones.
type idSharer interface {
	sharedID(typ string) bool
}

// sharesID reports whether cloud lets resources of typ share an ID.
func sharesID(cloud any, typ string) bool {
	c, ok := cloud.(idSharer)
	return ok && c.sharedID(typ)
}

// apiRefuser is a cloud whose API refuses some inputs its plugin's schema
// lets through: the create or update fails, as the real call would.
type apiRefuser interface {
	refuse(typ string, inputs resource.PropertyMap) error
}

// refused is what the cloud's API says of inputs (nil when it takes them).
func (p *provider) refused(typ string, inputs resource.PropertyMap) error {
	if c, ok := p.cloud.(apiRefuser); ok {
		if err := c.refuse(typ, inputs); err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
	}
	return nil
}

// Create makes the resource in the fake cloud (nothing in preview, where
// the computed outputs are unknown and the ID empty).
func (p *provider) Create(_ context.Context, req plugin.CreateRequest) (plugin.CreateResponse, error) {
	typ := string(req.Type)
	spec, err := p.spec(typ)
	if err != nil {
		return plugin.CreateResponse{}, err
	}
	outs := p.outputs(typ, spec, &gen{preview: req.Preview}, req.Properties)
	if req.Preview {
		return plugin.CreateResponse{Properties: outs}, nil
	}
	s, err := p.configured("Create")
	if err != nil {
		return plugin.CreateResponse{}, err
	}
	if err := p.refused(typ, req.Properties); err != nil {
		return plugin.CreateResponse{}, err
	}
	if c, ok := p.cloud.(accountLimiter); ok {
		if err := c.limit(s, typ, req.Properties); err != nil {
			return plugin.CreateResponse{}, status.Error(codes.FailedPrecondition, err.Error())
		}
	}
	if err := s.crdMissing(typ); err != nil {
		return plugin.CreateResponse{}, status.Error(codes.NotFound, err.Error())
	}
	id := p.cloud.newID(typ, req.Properties)
	if c, ok := p.cloud.(idOutputs); ok {
		c.idOutputs(typ, id, outs)
	}
	if old, err := s.get(typ, id); err != nil {
		return plugin.CreateResponse{}, status.Error(codes.Internal, err.Error())
	} else if old != nil && !sharesID(p.cloud, typ) {
		return plugin.CreateResponse{}, status.Errorf(codes.AlreadyExists,
			"%s %q already exists (created as %s)", typ, id, old.URN)
	}
	slow := createDelay() / 2 // half before the cloud has it, half after
	time.Sleep(slow)
	if err := s.put(p.contract.Package, typ, id, req.URN, req.Properties, outs); err != nil {
		return plugin.CreateResponse{}, status.Error(codes.Internal, err.Error())
	}
	time.Sleep(slow)
	if err := s.logCall("create", typ, id, req.URN); err != nil {
		return plugin.CreateResponse{}, status.Error(codes.Internal, err.Error())
	}
	s.dieOnce(typ)
	return plugin.CreateResponse{ID: resource.ID(id), Properties: outs}, nil
}

// Update replaces the stored inputs, keeping the random outputs.
func (p *provider) Update(_ context.Context, req plugin.UpdateRequest) (plugin.UpdateResponse, error) {
	typ, id := string(req.Type), string(req.ID)
	spec, err := p.spec(typ)
	if err != nil {
		return plugin.UpdateResponse{}, err
	}
	if req.Preview {
		return plugin.UpdateResponse{Properties: p.outputs(typ, spec, &gen{olds: req.OldOutputs, preview: true}, req.NewInputs)}, nil
	}
	s, err := p.configured("Update")
	if err != nil {
		return plugin.UpdateResponse{}, err
	}
	if err := p.refused(typ, req.NewInputs); err != nil {
		return plugin.UpdateResponse{}, err
	}
	rec, err := s.get(typ, id)
	if err != nil {
		return plugin.UpdateResponse{}, status.Error(codes.Internal, err.Error())
	} else if rec == nil {
		return plugin.UpdateResponse{}, status.Errorf(codes.NotFound, "%s %q does not exist in the fake cloud", typ, id)
	}
	olds, err := decode(rec.Outputs)
	if err != nil {
		return plugin.UpdateResponse{}, status.Error(codes.Internal, err.Error())
	}
	outs := p.outputs(typ, spec, &gen{olds: olds}, req.NewInputs)
	if err := s.put(p.contract.Package, typ, id, req.URN, req.NewInputs, outs); err != nil {
		return plugin.UpdateResponse{}, status.Error(codes.Internal, err.Error())
	}
	return plugin.UpdateResponse{Properties: outs}, nil
}

// Read returns the stored resource; an empty ID when it is gone. With no
// ID (an interrupted create) the fake aws looks the resource up by URN
// (runner's convention for plugins that can); the fake kubernetes,
// digitalocean and linode refuse, as the real ones do (they read by the
// ID only: runner finds it by the inputs, or through their functions).
func (p *provider) Read(_ context.Context, req plugin.ReadRequest) (plugin.ReadResponse, error) {
	s, err := p.configured("Read")
	if err != nil {
		return plugin.ReadResponse{}, err
	}
	typ := string(req.Type)
	if typ == "" {
		typ = string(req.URN.Type())
	}
	var rec *Record
	if req.ID == "" && (p.contract.Package != "aws" || os.Getenv(EnvNoURNLookup) == "1") {
		return plugin.ReadResponse{}, status.Errorf(codes.InvalidArgument, "resource name may not be empty (reading %s without an ID)", req.URN)
	}
	if req.ID == "" {
		rec, err = s.byURN(string(req.URN))
		if err == nil && rec == nil {
			return plugin.ReadResponse{}, status.Errorf(codes.NotFound, "no resource of the fake cloud has the URN %s", req.URN)
		}
	} else {
		rec, err = s.get(typ, string(req.ID))
	}
	if err != nil {
		return plugin.ReadResponse{}, status.Error(codes.Internal, err.Error())
	} else if rec == nil {
		return plugin.ReadResponse{}, nil
	}
	ins, err := decode(rec.Inputs)
	if err != nil {
		return plugin.ReadResponse{}, status.Error(codes.Internal, err.Error())
	}
	outs, err := decode(rec.Outputs)
	if err != nil {
		return plugin.ReadResponse{}, status.Error(codes.Internal, err.Error())
	}
	if r, ok := p.cloud.(renewer); ok && r.renew(typ, ins, outs) {
		if err := s.put(p.contract.Package, typ, rec.ID, resource.URN(rec.URN), ins, outs); err != nil {
			return plugin.ReadResponse{}, status.Error(codes.Internal, err.Error())
		}
	}
	return plugin.ReadResponse{ReadResult: plugin.ReadResult{ID: resource.ID(rec.ID), Inputs: ins, Outputs: outs}}, nil
}

// renewer is a cloud whose Read renews what expired in a resource's
// outputs (a DOKS cluster's kubeconfig token), in place; it reports
// whether it did.
type renewer interface {
	renew(typ string, inputs, outs resource.PropertyMap) bool
}

// Delete removes the resource from the fake cloud (a missing one is fine)
// unless the cloud refuses.
func (p *provider) Delete(_ context.Context, req plugin.DeleteRequest) (plugin.DeleteResponse, error) {
	s, err := p.configured("Delete")
	if err != nil {
		return plugin.DeleteResponse{}, err
	}
	typ := string(req.Type)
	if typ == "" {
		typ = string(req.URN.Type())
	}
	rec, err := s.get(typ, string(req.ID))
	if err != nil {
		return plugin.DeleteResponse{}, status.Error(codes.Internal, err.Error())
	} else if rec == nil {
		return plugin.DeleteResponse{}, nil
	}
	outs, err := decode(rec.Outputs)
	if err != nil {
		return plugin.DeleteResponse{}, status.Error(codes.Internal, err.Error())
	}
	if err := p.cloud.beforeDelete(s, rec, outs); err != nil {
		return plugin.DeleteResponse{}, status.Error(codes.FailedPrecondition, err.Error())
	}
	if err := s.remove(typ, string(req.ID)); err != nil {
		return plugin.DeleteResponse{}, status.Error(codes.Internal, err.Error())
	}
	if err := s.logCall("delete", typ, string(req.ID), req.URN); err != nil {
		return plugin.DeleteResponse{}, status.Error(codes.Internal, err.Error())
	}
	return plugin.DeleteResponse{}, nil
}

// EnvNoURNLookup "1" makes the fake aws refuse a read without an ID, as
// the real aws plugin cannot look a resource up by its URN.
const EnvNoURNLookup = "FAKECLOUD_NO_URN_LOOKUP"

// EnvDieAfterCreate names a type token: the first create of that type
// stores the resource, then the plugin process exits before answering (as
// if runner were killed then), once per fake cloud.
const EnvDieAfterCreate = "FAKECLOUD_DIE_AFTER_CREATE"

// dieOnce ends the process after the first create of typ when
// EnvDieAfterCreate names it.
func (s *store) dieOnce(typ string) {
	if os.Getenv(EnvDieAfterCreate) != typ {
		return
	}
	mark := filepath.Join(filepath.Dir(s.dir), ".died-"+strings.NewReplacer(":", "_", "/", "_").Replace(typ))
	if f, err := os.OpenFile(mark, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		f.Close()
		os.Exit(3)
	}
}

// EnvCreateDelay names the variable that slows every create down by a Go
// duration (as a real cloud takes time), half before the resource is
// stored and half after, so that kill tests land inside creates.
const EnvCreateDelay = "FAKECLOUD_CREATE_DELAY"

func createDelay() time.Duration {
	d, _ := time.ParseDuration(os.Getenv(EnvCreateDelay))
	return d
}

// now returns the current time in RFC 3339, as a property.
func now() resource.PropertyValue {
	return resource.NewStringProperty(time.Now().UTC().Format(time.RFC3339))
}
