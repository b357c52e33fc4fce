package cluster

import (
	"context"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/program"
	"github.com/runnerhq/runner/engine/resource"
)

// The passwords the tests configure; the accounts one needs escaping in a
// URI.
const (
	testAccountsPwd = "acc/p@ss:w0rd"
	testLedgerPwd   = "ledger-pw-7f3a"
	testDemoPwd     = "demo-pw-91bc"
	testGroupSecret = "pulumi-secret-sirius"
	testNamespace   = "sirius-ns"
)

// siriusConfig is a stack config with the passwords secret.
func siriusConfig() map[string]any {
	return map[string]any{
		"sirius:accounts_pwd":    resource.Secret{Element: testAccountsPwd},
		"sirius:ledger_pwd":      resource.Secret{Element: testLedgerPwd},
		"sirius:demo_login_pwd":  resource.Secret{Element: testDemoPwd},
		"sirius:demo_login_user": "testuser",
		"sirius:accounts_admin":  "admin",
		"sirius:ledger_db":       "ledgerdb",
	}
}

// siriusRefs are the upstream projects' outputs.
func siriusRefs() map[string]resource.PropertyMap {
	return map[string]resource.PropertyMap{
		KubeconfigProject: {KubeconfigOutput: resource.Secret{Element: "apiVersion: v1\nkind: Config\n"}, ClusterNameOutput: "c"},
		SecretsProject: {
			SecretsNamespacesOutput: map[string]any{SiriusGroup: testNamespace, "prometheus": "prometheus"},
			SecretsSecretsOutput:    map[string]any{SiriusGroup: testGroupSecret, "prometheus": "pulumi-secret-prometheus"},
		},
		IngressProject:       {IngressClassOutput: "nginx", LBHostnameOutput: "lb-123.elb.amazonaws.com"},
		ObservabilityProject: {CollectorEndpointOutput: "collector.observability.svc.cluster.local:4317"},
		PrometheusProject:    {StatsdServiceOutput: "statsd-prometheus-statsd-exporter", NamespaceOutput: "prometheus"},
	}
}

// declared is a resource the program declared, with its resolved inputs.
type declared struct {
	program.Declaration
	inputs resource.PropertyMap
}

// runSirius runs the program as the engine would, finishing each resource
// with its inputs as outputs (the tls key with fake PEMs), and returns the
// resources and the stack outputs.
func runSirius(cfg map[string]any, refs map[string]resource.PropertyMap, dryRun bool) ([]declared, resource.PropertyMap, error) {
	env := program.Env{
		Project: "sirius", Stack: "dev", DryRun: dryRun, Config: cfg,
		StackOutputs: func(project string) (resource.PropertyMap, bool, error) {
			return refs[project], false, nil
		},
	}
	ds, err := program.Run(context.Background(), env, Sirius)
	if err != nil {
		return nil, nil, err
	}
	var out []declared
	for i, d := range ds.List() {
		if i == 0 {
			continue
		}
		in, err := ds.Inputs(i)
		if err != nil {
			return nil, nil, err
		}
		outputs := in
		if d.Type == privateKeyType {
			outputs = resource.PropertyMap{
				"privateKeyPem": resource.Secret{Element: "-----BEGIN RSA PRIVATE KEY-----\nfake\n"},
				"publicKeyPem":  "-----BEGIN PUBLIC KEY-----\nfake\n",
			}
		}
		ds.Finish(i, d.Name+"-id", true, outputs, nil)
		out = append(out, declared{d, in})
	}
	outputs, err := ds.Outputs()
	return out, outputs, err
}

// contract is the part of a provider contract file the test reads.
type contract struct {
	Resources map[string]struct {
		Inputs map[string]struct {
			Type     string `json:"type"`
			Required bool   `json:"required"`
			Const    string `json:"const"`
		} `json:"inputs"`
	} `json:"resources"`
}

func loadKubernetesContract(t *testing.T) contract {
	t.Helper()
	return loadContract(t) // testdata: the resources of @pulumi/kubernetes 4.34.2 the layers use
}

// coarseType is the contract's coarse type of a resolved input value.
func coarseType(v any) string {
	v, _ = resource.UnsecretDeep(v)
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any, resource.PropertyMap:
		return "object"
	}
	return "unknown"
}

func TestSiriusDeclaresOnlyWhatTheKubernetesContractLists(t *testing.T) {
	c := loadKubernetesContract(t)
	list, _, err := runSirius(siriusConfig(), siriusRefs(), false)
	if err != nil {
		t.Fatal(err)
	}
	providerIndex, kinds := -1, map[string]int{}
	for i, d := range list {
		kinds[d.Type]++
		switch {
		case d.Type == "pulumi:providers:kubernetes":
			providerIndex = i + 1 // declarations count the root stack
		case d.Type == privateKeyType:
			for k := range d.inputs {
				if k != "algorithm" && k != "rsaBits" {
					t.Errorf("tls key: input %q is not one of the tls plugin's", k)
				}
			}
		default:
			checkContract(t, c, d, providerIndex)
		}
	}
	if providerIndex < 0 || kinds["pulumi:providers:kubernetes"] != 1 {
		t.Errorf("want exactly one kubernetes provider, declared %v", kinds)
	}
	for typ, n := range map[string]int{statefulSetType: 2, deploymentType: 7, serviceType: 9, ingressType: 1, secretType: 2, configMapType: 6, privateKeyType: 1} {
		if kinds[typ] != n {
			t.Errorf("declared %d of %s, want %d (all: %v)", kinds[typ], typ, n, kinds)
		}
	}
}

// checkContract fails when d's type, input names, required inputs, consts
// or coarse types are not what the contract says, or d does not use the
// explicit provider.
func checkContract(t *testing.T, c contract, d declared, providerIndex int) {
	t.Helper()
	res, ok := c.Resources[d.Type]
	if !ok || !strings.HasPrefix(d.Type, "kubernetes:") {
		t.Errorf("%s: type %q is not in the kubernetes contract", d.Name, d.Type)
		return
	}
	if d.Provider != providerIndex {
		t.Errorf("%s %s: provider declaration %d, want the explicit provider %d", d.Type, d.Name, d.Provider, providerIndex)
	}
	for k, v := range d.inputs {
		in, ok := res.Inputs[k]
		switch {
		case !ok:
			t.Errorf("%s %s: input %q is not in the contract", d.Type, d.Name, k)
		case in.Const != "" && v != in.Const:
			t.Errorf("%s %s: input %q is %v, want %q", d.Type, d.Name, k, v, in.Const)
		case in.Type != "any" && coarseType(v) != in.Type:
			t.Errorf("%s %s: input %q is a %s, want %s", d.Type, d.Name, k, coarseType(v), in.Type)
		}
	}
	for k, in := range res.Inputs {
		if _, ok := d.inputs[k]; in.Required && !ok {
			t.Errorf("%s %s: required input %q missing", d.Type, d.Name, k)
		}
	}
}
