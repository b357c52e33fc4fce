package plugins

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// function is one data source of a fake cloud that runner calls (to find
// the resource of an interrupted create by its name): the arguments it
// takes, the keys its filters may name, and what it answers from the
// cloud's records.
type function struct {
	typ        string   // the resource type it lists
	args       []string // the argument names the real function takes
	filterKey  string   // "key" (digitalocean) or "name" (linode)
	filterable []string // the fields a filter may name
	answer     func(recs []*Record, args resource.PropertyMap) (resource.PropertyMap, error)
}

// functions are the data sources of the fake digitalocean and linode
// plugins, with the tokens, arguments and results of @pulumi/digitalocean
// 4.80.1 and @pulumi/linode 5.1.1.
var functions = map[string]function{
	"digitalocean:index/getKubernetesCluster:getKubernetesCluster": {typ: "digitalocean:index/kubernetesCluster:KubernetesCluster",
		args: []string{"name", "tags"}, answer: doCluster},
	"digitalocean:index/getRecords:getRecords": {typ: "digitalocean:index/dnsRecord:DnsRecord",
		args: []string{"domain", "filters", "sorts"}, filterKey: "key",
		filterable: []string{"domain", "flags", "name", "port", "priority", "tag", "ttl", "type", "value", "weight"},
		answer:     listOf("records", "domain")},
	"linode:index/getLkeClusters:getLkeClusters": {typ: "linode:index/lkeCluster:LkeCluster",
		args: []string{"filters", "order", "orderBy"}, filterKey: "name",
		filterable: []string{"k8sVersion", "label", "region", "tags", "status", "created", "updated"},
		answer:     listOf("lkeClusters", "")},
}

// Invoke answers the data sources the fake clouds have (functions),
// refusing arguments the real function would not take.
func (p *provider) Invoke(_ context.Context, req plugin.InvokeRequest) (plugin.InvokeResponse, error) {
	fn, ok := functions[string(req.Tok)]
	if !ok || fn.typ[:len(p.contract.Package)+1] != p.contract.Package+":" {
		return plugin.InvokeResponse{}, status.Errorf(codes.InvalidArgument, "unknown function %s", req.Tok)
	}
	if err := fn.check(req.Args); err != nil {
		return plugin.InvokeResponse{}, status.Errorf(codes.InvalidArgument, "%s: %v", req.Tok, err)
	}
	s, err := p.configured("Invoke")
	if err != nil {
		return plugin.InvokeResponse{}, err
	}
	all, err := s.all()
	if err != nil {
		return plugin.InvokeResponse{}, status.Error(codes.Internal, err.Error())
	}
	var recs []*Record
	for _, r := range all {
		if r.Type == fn.typ {
			recs = append(recs, r)
		}
	}
	out, err := fn.answer(recs, req.Args)
	if err != nil {
		return plugin.InvokeResponse{}, err
	}
	return plugin.InvokeResponse{Properties: out}, nil
}

// check refuses an argument the function does not take and a filter that
// names a field it cannot filter on or has no values.
func (fn function) check(args resource.PropertyMap) error {
	for k := range args {
		if !slices.Contains(fn.args, string(k)) {
			return fmt.Errorf("unexpected argument %q (it takes %v)", k, fn.args)
		}
	}
	if slices.Contains(fn.args, "domain") && !Plain(args["domain"]).IsString() {
		return fmt.Errorf("the argument domain is required")
	}
	if slices.Contains(fn.args, "name") && fn.filterKey == "" && !Plain(args["name"]).IsString() {
		return fmt.Errorf("the argument name is required")
	}
	filters := Plain(args["filters"])
	if filters.IsNull() {
		return nil
	}
	if !filters.IsArray() {
		return fmt.Errorf("filters must be a list")
	}
	for i, f := range filters.ArrayValue() {
		if !f.IsObject() {
			return fmt.Errorf("filters[%d] must be an object", i)
		}
		for k := range f.ObjectValue() {
			if k != resource.PropertyKey(fn.filterKey) && k != "values" && k != "matchBy" && k != "all" {
				return fmt.Errorf("filters[%d]: unexpected field %q", i, k)
			}
		}
		key := Plain(f.ObjectValue()[resource.PropertyKey(fn.filterKey)])
		if !key.IsString() || !slices.Contains(fn.filterable, key.StringValue()) {
			return fmt.Errorf("filters[%d].%s must be one of %v", i, fn.filterKey, fn.filterable)
		}
		if v := Plain(f.ObjectValue()["values"]); !v.IsArray() || len(v.ArrayValue()) == 0 {
			return fmt.Errorf("filters[%d].values must be a list of at least one value", i)
		}
	}
	return nil
}

// doCluster is getKubernetesCluster: the cluster of that name, or the
// real provider's error when there is none.
func doCluster(recs []*Record, args resource.PropertyMap) (resource.PropertyMap, error) {
	name := Plain(args["name"]).StringValue()
	for _, r := range recs {
		if r.Inputs["name"] == name {
			outs, err := decode(r.Outputs)
			if err != nil {
				return nil, status.Error(codes.Internal, err.Error())
			}
			outs["id"] = resource.NewStringProperty(r.ID)
			return outs, nil
		}
	}
	return nil, status.Errorf(codes.Unknown, "Unable to find cluster with name: %s", name)
}

// listOf answers a list function: the records whose inputs match every
// filter (exactly, any of its values), under key, each with its numeric
// ID and its outputs; scope names an argument records must match too.
func listOf(key, scope string) func([]*Record, resource.PropertyMap) (resource.PropertyMap, error) {
	return func(recs []*Record, args resource.PropertyMap) (resource.PropertyMap, error) {
		var items []resource.PropertyValue
		for _, r := range recs {
			outs, err := decode(r.Outputs)
			if err != nil {
				return nil, status.Error(codes.Internal, err.Error())
			}
			if scope != "" && !matches(outs[resource.PropertyKey(scope)], Plain(args[resource.PropertyKey(scope)])) {
				continue
			}
			if !matchesFilters(outs, Plain(args["filters"])) {
				continue
			}
			n, err := strconv.ParseFloat(r.ID, 64)
			if err != nil {
				return nil, status.Errorf(codes.Internal, "the ID %q is not a number", r.ID)
			}
			outs["id"] = resource.NewNumberProperty(n)
			items = append(items, resource.NewObjectProperty(outs))
		}
		return resource.PropertyMap{resource.PropertyKey(key): resource.NewArrayProperty(items),
			"id": resource.NewStringProperty("fake-" + key), "filters": args["filters"]}, nil
	}
}

// matchesFilters reports whether outs matches each filter of filters.
func matchesFilters(outs resource.PropertyMap, filters resource.PropertyValue) bool {
	if !filters.IsArray() {
		return true
	}
	for _, f := range filters.ArrayValue() {
		obj := f.ObjectValue()
		field := Plain(obj["key"])
		if field.IsNull() {
			field = Plain(obj["name"])
		}
		ok := false
		for _, want := range Plain(obj["values"]).ArrayValue() {
			ok = ok || matches(outs[resource.PropertyKey(field.StringValue())], Plain(want))
		}
		if !ok {
			return false
		}
	}
	return true
}

// matches reports whether the output v equals want, or holds it (a list
// of tags).
func matches(v, want resource.PropertyValue) bool {
	v = Plain(v)
	if v.IsArray() {
		for _, e := range v.ArrayValue() {
			if matches(e, want) {
				return true
			}
		}
		return false
	}
	return fmt.Sprint(v.V) == fmt.Sprint(want.V)
}
