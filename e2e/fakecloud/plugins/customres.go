package plugins

import (
	"fmt"
	"strings"
)

// customResources are the custom resource types the fake kubernetes
// provider takes, with the chart whose CRDs define them. Pulumi's
// kubernetes provider takes any kubernetes:<group>/<version>:<Kind> whose
// CRD the cluster has (the SDK's apiextensions.CustomResource); its
// schema, and so the contract, lists none.
var customResources = map[string]string{
	"kubernetes:cert-manager.io/v1:ClusterIssuer": "cert-manager",
	"kubernetes:cert-manager.io/v1:Issuer":        "cert-manager",
	"kubernetes:cert-manager.io/v1:Certificate":   "cert-manager",
}

// addCustomResources adds customResources to the kubernetes contract as
// the SDK's CustomResource declares them: apiVersion and kind (constants
// of the token), metadata and spec.
func (c *Contract) addCustomResources() {
	if c.Package != "kubernetes" {
		return
	}
	for typ := range customResources {
		parts := strings.SplitN(strings.TrimPrefix(typ, "kubernetes:"), ":", 2)
		c.Resources[typ] = ResourceSpec{
			Inputs: map[string]InputSpec{
				"apiVersion": {Type: "string", Const: parts[0]},
				"kind":       {Type: "string", Const: parts[1]},
				"metadata":   {Type: "object"},
				"spec":       {Type: "object", Required: true},
			},
			Outputs: []string{"apiVersion", "kind", "metadata", "spec", "status"},
		}
	}
}

// crdMissing refuses, as the API server does ("no matches for kind"), a
// custom resource of typ whose CRDs no Helm release in the fake cloud
// installed.
func (s *store) crdMissing(typ string) error {
	chart, ok := customResources[typ]
	if !ok {
		return nil
	}
	all, err := s.all()
	if err != nil {
		return err
	}
	for _, r := range all {
		if c, _ := r.Inputs["chart"].(string); r.Type == releaseType && (c == chart || strings.HasSuffix(c, "/"+chart)) {
			return nil
		}
	}
	parts := strings.Split(typ, ":")
	return fmt.Errorf("no matches for kind %q in version %q: install the CRDs first (the %s chart)", parts[2], parts[1], chart)
}
