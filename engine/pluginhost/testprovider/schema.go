package main

import (
	"context"
	"encoding/json"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// inputs are the properties the schema declares on every resource type:
// Pulumi YAML programs may set only declared properties. Thing takes any
// inputs at run time; these are the ones the tests' programs use.
var inputs = map[string]string{
	"value": "string", "input": "string", "secret": "string", "prev": "string", "label": "string",
	"n": "number", "sleepMs": "number", "hang": "boolean", "crash": "string", "initError": "boolean",
	"warn": "string", "checkFail": "string", "target": "string", "name": "string",
}

// GetSchema returns the package schema that Pulumi YAML binds programs
// against: Thing, Blob and Ref with the inputs above, and the outputs
// every resource gets (generation, createdAt); and the component Pair
// (component.go); and the provider's configuration, for explicit
// providers.
func (p *provider) GetSchema(context.Context, plugin.GetSchemaRequest) (plugin.GetSchemaResponse, error) {
	props := map[string]any{}
	for k, t := range inputs {
		props[k] = map[string]any{"type": t}
	}
	outs := map[string]any{"generation": map[string]any{"type": "number"}, "createdAt": map[string]any{"type": "string"}}
	for k, v := range props {
		outs[k] = v
	}
	res := func(extra map[string]any) map[string]any {
		in := map[string]any{}
		for k, v := range props {
			in[k] = v
		}
		o := map[string]any{}
		for k, v := range outs {
			o[k] = v
		}
		for k, v := range extra {
			in[k], o[k] = v, v
		}
		return map[string]any{"inputProperties": in, "properties": o}
	}
	schema := map[string]any{
		"name": "testprov", "version": version,
		"provider": map[string]any{"inputProperties": map[string]any{"store": map[string]any{"type": "string"},
			"zone": map[string]any{"type": "string"}, "token": map[string]any{"type": "string"}}},
		"resources": map[string]any{
			typeThing: res(nil),
			typeBlob:  res(map[string]any{"asset": map[string]any{"$ref": "pulumi.json#/Asset"}, "archive": map[string]any{"$ref": "pulumi.json#/Archive"}}),
			typeRef:   res(nil),
			typePair: map[string]any{"isComponent": true,
				"inputProperties": map[string]any{"value": map[string]any{"type": "string"}, "sleepMs": map[string]any{"type": "number"}},
				"properties":      map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}},
		},
	}
	b, err := json.Marshal(p.renamed(schema))
	return plugin.GetSchemaResponse{Schema: b}, err
}
