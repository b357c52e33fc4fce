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
//go:embed testdata/aws.json testdata/kubernetes.json testdata/digitalocean.json testdata/linode.json
var contracts embed.FS

// Contract is what one provider accepts: its resource types with their
// inputs and outputs, and its configuration keys.
type Contract struct {
	Package   string                  `json:"package"`
	Version   string                  `json:"version"`
	Config    map[string]ConfigKey    `json:"config"`
	Resources map[string]ResourceSpec `json:"resources"`
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

// InputSpec is the contract of one input: its coarse type (string, number,
// boolean, array, object, asset or any), whether it is required, secret,
// or must hold one constant value.
type InputSpec struct {
	Type     string `json:"type"`
	Required bool   `json:"required"`
	Secret   bool   `json:"secret"`
	Const    any    `json:"const"`
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
	return &c, nil
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
