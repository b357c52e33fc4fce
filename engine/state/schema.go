package state

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schemas are verbatim copies of Pulumi's published JSON schemas
// (sdk/go/common/apitype, Apache License 2.0), also kept in shared/pulumi-schemas.
//
//go:embed schema/*.json
var schemaFiles embed.FS

// SchemaBaseURL is the prefix of the $id of Pulumi's schema files.
const SchemaBaseURL = "https://github.com/pulumi/pulumi/blob/master/sdk/go/common/apitype/"

// SchemaFiles names Pulumi's schema files, each loaded under SchemaBaseURL+name.
var SchemaFiles = []string{"deployments.json", "resources.json", "property-values.json", "project.json"}

// extensionFields are ResourceV3 fields that Pulumi itself writes (its
// apitype.ResourceV3, up to v3.274) but that its published resources.json
// (additionalProperties: false) does not list. ValidateSchema sets them
// aside, checking only their JSON type ("" for any type).
var extensionFields = map[string]string{
	"retainOnDelete":      "boolean",
	"deletedWith":         "string",
	"replaceWith":         "array",
	"created":             "string",
	"modified":            "string",
	"sourcePosition":      "string",
	"stackTrace":          "array",
	"ignoreChanges":       "array",
	"replaceOnChanges":    "array",
	"replacementTrigger":  "",
	"refreshBeforeUpdate": "boolean",
	"hideDiff":            "array",
	"taint":               "boolean",
	"viewOf":              "string",
	"resourceHooks":       "object",
	"extensionRef":        "string",
}

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// CompileSchema compiles Pulumi's deployment schema from the four files
// read by open (name → contents), each added under its $id.
func CompileSchema(open func(name string) ([]byte, error)) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	for _, name := range SchemaFiles {
		data, err := open(name)
		if err != nil {
			return nil, fmt.Errorf("reading the schema %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("parsing the schema %s: %w", name, err)
		}
		if err := c.AddResource(SchemaBaseURL+name, doc); err != nil {
			return nil, fmt.Errorf("loading the schema %s: %w", name, err)
		}
	}
	s, err := c.Compile(SchemaBaseURL + "deployments.json")
	if err != nil {
		return nil, fmt.Errorf("compiling the deployment schema: %w", err)
	}
	return s, nil
}

func embeddedSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		schema, schemaErr = CompileSchema(func(name string) ([]byte, error) { return schemaFiles.ReadFile("schema/" + name) })
	})
	return schema, schemaErr
}

// ValidateSchema validates a deployment export against Pulumi's deployment
// schema. Fields that Pulumi writes beyond its published schema (the
// deployment's "metadata", and resource fields such as "created",
// "modified", "retainOnDelete" and "ignoreChanges") are set aside and only
// their JSON type is checked, so that exports of current Pulumi versions,
// and runner's own snapshots, validate.
func ValidateSchema(data []byte) error {
	s, err := embeddedSchema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("the deployment is not valid JSON: %w", err)
	}
	if err := StripExtensions(doc); err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("the deployment does not match Pulumi's deployment schema: %w", err)
	}
	return nil
}

// StripExtensions removes, in place, the fields of a parsed deployment that
// Pulumi writes beyond its published schema (see ValidateSchema), failing
// when one of them has the wrong JSON type.
func StripExtensions(doc any) error {
	top, _ := doc.(map[string]any)
	dep, _ := top["deployment"].(map[string]any)
	if dep == nil {
		return nil
	}
	delete(dep, "metadata")
	resources, _ := dep["resources"].([]any)
	for i, r := range resources {
		if err := stripResource(r); err != nil {
			return fmt.Errorf("the deployment's resource #%d: %w", i+1, err)
		}
	}
	ops, _ := dep["pending_operations"].([]any)
	for i, op := range ops {
		if m, ok := op.(map[string]any); ok {
			if err := stripResource(m["resource"]); err != nil {
				return fmt.Errorf("the deployment's pending operation #%d: %w", i+1, err)
			}
		}
	}
	return nil
}

func stripResource(r any) error {
	m, ok := r.(map[string]any)
	if !ok {
		return nil // the schema reports it
	}
	for field, want := range extensionFields {
		v, ok := m[field]
		if !ok {
			continue
		}
		if got := jsonType(v); want != "" && got != want {
			return fmt.Errorf("field %q is a %s, want a %s", field, got, want)
		}
		delete(m, field)
	}
	return nil
}

func jsonType(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return "number"
}
