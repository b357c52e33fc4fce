package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/runnerhq/runner/e2e/fakecloud/plugins"
)

// pkgSchema is the part of a Pulumi package schema (schema.json) read here.
type pkgSchema struct {
	Types     map[string]schemaType `json:"types"`
	Resources map[string]struct {
		InputProperties map[string]*schemaProp `json:"inputProperties"`
		RequiredInputs  []string               `json:"requiredInputs"`
	} `json:"resources"`
}

// schemaType is an object or enum type of the schema.
type schemaType struct {
	Type       string                 `json:"type"`
	Properties map[string]*schemaProp `json:"properties"`
	Required   []string               `json:"required"`
	Enum       []struct {
		Value any `json:"value"`
	} `json:"enum"`
}

// schemaProp is a property's type in the schema.
type schemaProp struct {
	Type                 string        `json:"type"`
	Ref                  string        `json:"$ref"`
	Items                *schemaProp   `json:"items"`
	AdditionalProperties *schemaProp   `json:"additionalProperties"`
	OneOf                []*schemaProp `json:"oneOf"`
	Const                any           `json:"const"`
	Secret               bool          `json:"secret"`
}

// schemaShapes converts a package schema to input shapes.
type schemaShapes struct {
	schema *pkgSchema
	types  map[string]*plugins.InputSpec
	queue  []string
}

// readSchema loads the schema.json at path.
func readSchema(path string) (*schemaShapes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s pkgSchema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &schemaShapes{schema: &s, types: map[string]*plugins.InputSpec{}}, nil
}

// resource returns the inputs of the resource type token.
func (s *schemaShapes) resource(token string) (map[string]*plugins.InputSpec, error) {
	r, ok := s.schema.Resources[token]
	if !ok {
		return nil, fmt.Errorf("the schema has no resource %s", token)
	}
	return s.object(r.InputProperties, r.RequiredInputs).Properties, nil
}

// object returns the shape of an object type with props and required.
func (s *schemaShapes) object(props map[string]*schemaProp, required []string) *plugins.InputSpec {
	t := &plugins.InputSpec{Type: "object", Properties: map[string]*plugins.InputSpec{}}
	for name, p := range props {
		t.Properties[name] = s.prop(p)
	}
	for _, name := range required {
		if p, ok := t.Properties[name]; ok {
			p.Required = true
		}
	}
	return t
}

// prop returns the shape of one property type.
func (s *schemaShapes) prop(p *schemaProp) *plugins.InputSpec {
	t := &plugins.InputSpec{Type: p.Type, Const: p.Const, Secret: p.Secret}
	switch {
	case p.Ref == "pulumi.json#/Any" || p.Ref == "pulumi.json#/Json":
		t.Type = "any"
	case p.Ref == "pulumi.json#/Asset" || p.Ref == "pulumi.json#/Archive":
		t.Type = "asset"
	case strings.HasPrefix(p.Ref, "#/types/"):
		name := strings.TrimPrefix(p.Ref, "#/types/")
		if _, ok := s.types[name]; !ok {
			s.types[name] = nil
			s.queue = append(s.queue, name)
		}
		t.Type, t.Ref = "", name
	case p.Ref != "":
		t.Type = "any"
	case len(p.OneOf) > 0:
		t.Type = ""
		for _, alt := range p.OneOf {
			t.OneOf = append(t.OneOf, s.prop(alt))
		}
	}
	if p.Items != nil {
		t.Items = s.prop(p.Items)
	}
	if p.AdditionalProperties != nil {
		t.AdditionalProperties = s.prop(p.AdditionalProperties)
	}
	return t
}

// resolve converts every queued type (and those they refer to).
func (s *schemaShapes) resolve() error {
	for len(s.queue) > 0 {
		name := s.queue[0]
		s.queue = s.queue[1:]
		st, ok := s.schema.Types[name]
		if !ok {
			return fmt.Errorf("the schema has no type %s", name)
		}
		if len(st.Enum) > 0 {
			t := &plugins.InputSpec{Type: st.Type}
			for _, e := range st.Enum {
				t.Enum = append(t.Enum, e.Value)
			}
			s.types[name] = t
			continue
		}
		s.types[name] = s.object(st.Properties, st.Required)
	}
	return nil
}
