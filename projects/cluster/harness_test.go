package cluster

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

// ran is what a program declared and exported when every resource was
// "created" with its inputs as outputs.
type ran struct {
	byName  map[string]decl
	order   []string
	outputs resource.PropertyMap
}

type decl struct {
	typ      string
	inputs   resource.PropertyMap
	provider string // the explicit provider's name ("": none)
}

// upstream are the stack outputs of the projects a program reads.
var upstream = map[string]resource.PropertyMap{
	KubeconfigProject:       {KubeconfigOutput: resource.Secret{Element: "apiVersion: v1\nkind: Config\n"}, ClusterNameOutput: "c1"},
	IngressNamespaceProject: {NamespaceOutput: IngressNamespaceName},
	LogstoreProject:         {ElasticHostnameOutput: "elastic-elasticsearch.logstore.svc.cluster.local"},
	CertmgrProject:          {NamespaceOutput: "cert-manager", CRDsInstalledOutput: true},
	SecretsProject: {
		SecretsNamespacesOutput: map[string]any{"prometheus": "prometheus", "sirius": "sirius"},
		SecretsSecretsOutput:    map[string]any{"prometheus": "prometheus-secrets", "sirius": "sirius-secrets"},
	},
	"eks": {KubeconfigOutput: resource.Secret{Element: "kc"}, ClusterNameOutput: "eks-1"},
}

// run runs prog with cfg as a fake engine would: each resource is created
// in declaration order with its inputs as outputs (plus a load balancer
// status for Services and a release status for Releases).
func run(t *testing.T, prog engine.Program, cfg map[string]any) (*ran, error) {
	t.Helper()
	env := program.Env{Project: "p", Stack: "dev", Config: cfg,
		StackOutputs: func(project string) (resource.PropertyMap, bool, error) {
			return upstream[project], false, nil
		}}
	ds, err := program.Run(context.Background(), env, prog)
	if err != nil {
		return nil, err
	}
	r := &ran{byName: map[string]decl{}}
	list := ds.List()
	for i, d := range list {
		if !d.Custom {
			ds.Finish(i, "", false, nil, nil)
			continue
		}
		in, err := ds.Inputs(i)
		if err != nil {
			return nil, err
		}
		out := resource.PropertyMap{}
		for k, v := range in {
			out[k] = v
		}
		switch d.Type {
		case serviceType:
			out["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": []any{
				map[string]any{"hostname": "lb.example.com", "ip": "203.0.113.7"}}}}
		case releaseType:
			out["status"] = map[string]any{"name": in["name"], "status": "deployed"}
		}
		ds.Finish(i, "id-"+d.Name, true, out, nil)
		dec := decl{typ: d.Type, inputs: in}
		if d.Provider >= 0 {
			dec.provider = list[d.Provider].Name
		}
		r.byName[d.Name] = dec
		r.order = append(r.order, d.Name)
	}
	if r.outputs, err = ds.Outputs(); err != nil {
		return nil, err
	}
	return r, nil
}

// loadContract reads the part of the kubernetes plugin's contract the
// layers use (type contract of sirius_test.go).
func loadContract(t *testing.T) contract {
	t.Helper()
	b, err := os.ReadFile("testdata/kubernetes-contract.json")
	if err != nil {
		t.Fatal(err)
	}
	var c contract
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// checkDeclared fails the test for a resource of a type, or with an input,
// that the contract does not list, or without a required input, and for a
// Kubernetes resource that does not use the layer's provider.
func checkDeclared(t *testing.T, c contract, r *ran) {
	t.Helper()
	for _, name := range r.order {
		d := r.byName[name]
		if d.typ == "pulumi:providers:kubernetes" {
			continue
		}
		spec, ok := c.Resources[d.typ]
		if !ok {
			t.Errorf("%s: type %s is not in the contract", name, d.typ)
			continue
		}
		if d.provider != "cluster" {
			t.Errorf("%s: uses provider %q, want the layer's (cluster)", name, d.provider)
		}
		var keys []string
		for k := range d.inputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := spec.Inputs[k]; !ok {
				t.Errorf("%s (%s): input %q is not in the contract", name, d.typ, k)
			}
		}
		for k, in := range spec.Inputs {
			if in.Required && !slices.Contains(keys, k) {
				t.Errorf("%s (%s): required input %q is missing", name, d.typ, k)
			}
		}
	}
}

// dig reads a path of map keys from v.
func dig(v any, path ...string) any {
	for _, p := range path {
		if s, ok := v.(resource.Secret); ok {
			v = s.Element
		}
		m, ok := v.(map[string]any)
		if !ok {
			if pm, ok2 := v.(resource.PropertyMap); ok2 {
				m = pm
			} else {
				return nil
			}
		}
		v = m[p]
	}
	return v
}
