// Package plugins is the shared code of two fake Pulumi resource provider
// plugins, pulumi-resource-aws (7.48.0) and pulumi-resource-kubernetes
// (4.34.2): real gRPC plugins on Pulumi's own provider server that check
// every resource against the contract of the real provider (testdata/,
// read from Pulumi's published SDKs) and keep the resources they create in
// a fake cloud, one JSON file per resource under $FAKECLOUD_DIR. README.md
// says what they accept and return.
package plugins

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"
)

// contracts holds the providers' contract files.
//
//go:embed testdata/aws.json testdata/kubernetes.json testdata/digitalocean.json testdata/linode.json testdata/shapes
var contracts embed.FS

// Contract is what one provider accepts: its resource types with their
// inputs and outputs, and its configuration keys.
type Contract struct {
	Package   string                  `json:"package"`
	Version   string                  `json:"version"`
	Config    map[string]ConfigKey    `json:"config"`
	Resources map[string]ResourceSpec `json:"resources"`
	// Types are the named nested shapes that inputs refer to by Ref (from
	// testdata/shapes/<package>.json, which contractgen writes).
	Types map[string]*InputSpec `json:"types,omitempty"`
}

// ConfigKey is one configuration key of the provider.
type ConfigKey struct {
	Env []string `json:"env"` // environment variables that also set it
}

// ResourceSpec is the contract of one resource type.
type ResourceSpec struct {
	Inputs           map[string]InputSpec `json:"inputs"`
	Outputs          []string             `json:"outputs"`
	SecretOutputs    []string             `json:"secretOutputs"`
	ReplaceOnChanges []string             `json:"replaceOnChanges"`
}

// InputSpec is the contract of one input, or of a value nested in one: its
// type (string, integer, number, boolean, array, object, asset or any;
// empty with Ref or OneOf), whether it is required (in the object that
// holds it), secret, or must hold one constant value. The nested shape,
// where the shapes file gives one: Ref names a shape in Contract.Types;
// an object's Properties (unlisted ones refused) or AdditionalProperties
// (a map's values); an array's Items; the Enum of allowed values; OneOf
// alternatives.
type InputSpec struct {
	Type                 string                `json:"type,omitempty"`
	Required             bool                  `json:"required,omitempty"`
	Secret               bool                  `json:"secret,omitempty"`
	Const                any                   `json:"const,omitempty"`
	Ref                  string                `json:"ref,omitempty"`
	Properties           map[string]*InputSpec `json:"properties,omitempty"`
	AdditionalProperties *InputSpec            `json:"additionalProperties,omitempty"`
	Items                *InputSpec            `json:"items,omitempty"`
	Enum                 []any                 `json:"enum,omitempty"`
	OneOf                []*InputSpec          `json:"oneOf,omitempty"`
}

// LoadContract returns the contract of pkg ("aws", "kubernetes",
// "digitalocean" or "linode").
func LoadContract(pkg string) (*Contract, error) {
	data, err := contracts.ReadFile("testdata/" + pkg + ".json")
	if err != nil {
		return nil, fmt.Errorf("no contract for the %q provider (there are aws, kubernetes, digitalocean and linode): %w", pkg, err)
	}
	var c Contract
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("the %s contract is not valid JSON: %w", pkg, err)
	}
	if c.Package != pkg || c.Version == "" || len(c.Resources) == 0 {
		return nil, fmt.Errorf("the %s contract names package %q version %q with %d resources", pkg, c.Package, c.Version, len(c.Resources))
	}
	if err := c.addShapes(); err != nil {
		return nil, err
	}
	c.addCustomResources()
	return &c, nil
}

// Shapes is a file of nested input shapes (testdata/shapes/<package>.json,
// written by contractgen): for some resource types, every input with its
// nested shape, and the named shapes they refer to.
type Shapes struct {
	Package   string                           `json:"package"`
	Version   string                           `json:"version"`
	Source    string                           `json:"source"`
	Types     map[string]*InputSpec            `json:"types"`
	Resources map[string]map[string]*InputSpec `json:"resources"`
}

// addShapes replaces the flat inputs of the resource types the shapes file
// of c's package covers with their nested shapes, keeping the contract's
// required and secret flags and constants, and the inputs only the
// contract lists (kubernetes' schema.json is of a later provider than the
// SDK the contract was read from). A package without a shapes file keeps
// its flat contract.
func (c *Contract) addShapes() error {
	data, err := contracts.ReadFile("testdata/shapes/" + c.Package + ".json")
	if err != nil {
		return nil
	}
	var sh Shapes
	if err := json.Unmarshal(data, &sh); err != nil {
		return fmt.Errorf("the %s shapes file is not valid JSON: %w", c.Package, err)
	}
	if sh.Package != c.Package || sh.Version != c.Version {
		return fmt.Errorf("the %s shapes file is of %s %s, the contract of %s %s: re-run contractgen", c.Package, sh.Package, sh.Version, c.Package, c.Version)
	}
	c.Types = sh.Types
	for typ, inputs := range sh.Resources {
		spec, ok := c.Resources[typ]
		if !ok {
			return fmt.Errorf("the %s shapes file has %s, which the contract has not", c.Package, typ)
		}
		nested := make(map[string]InputSpec, len(inputs))
		for name, flat := range spec.Inputs {
			nested[name] = flat // an input only the SDK of this version has
		}
		for name, in := range inputs {
			flat := spec.Inputs[name]
			in.Required = in.Required || flat.Required
			in.Secret = in.Secret || flat.Secret
			if in.Const == nil {
				in.Const = flat.Const
			}
			nested[name] = *in
		}
		spec.Inputs = nested
		c.Resources[typ] = spec
	}
	return nil
}

// Required returns the names of the required inputs of spec, sorted.
func (r ResourceSpec) Required() []string {
	var out []string
	for name, in := range r.Inputs {
		if in.Required {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
