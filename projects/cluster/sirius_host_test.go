package cluster

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestSiriusIngressHost(t *testing.T) {
	tests := []struct {
		name       string
		hostname   any // sirius:hostname; nil: unset
		lb, class  any // ingress-controller outputs; nil lb: project never deployed
		dryRun     bool
		wantHost   any // resource.Computed{} when unknown
		wantClass  any
		wantURL    any
		wantErrHas string
	}{
		{name: "config wins", hostname: "bank.example.com", lb: "lb.elb", class: "nginx",
			wantHost: "bank.example.com", wantClass: "nginx", wantURL: "http://bank.example.com"},
		{name: "load balancer when unset", lb: "lb.elb", class: "kic",
			wantHost: "lb.elb", wantClass: "kic", wantURL: "http://lb.elb"},
		{name: "load balancer when empty", hostname: "", lb: "lb.elb", class: "",
			wantHost: "lb.elb", wantClass: DefaultIngressClass, wantURL: "http://lb.elb"},
		{name: "no hostname anywhere", lb: "", class: "nginx", wantErrHas: "set sirius:hostname"},
		{name: "preview before the controller", dryRun: true,
			wantHost: resource.Computed{}, wantClass: resource.Computed{}, wantURL: resource.Computed{}},
		{name: "preview with the hostname set", hostname: "bank.example.com", dryRun: true,
			wantHost: "bank.example.com", wantClass: resource.Computed{}, wantURL: "http://bank.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, refs := siriusConfig(), siriusRefs()
			if tt.hostname != nil {
				cfg["sirius:hostname"] = tt.hostname
			}
			if tt.lb == nil {
				delete(refs, IngressProject)
			} else {
				refs[IngressProject] = resource.PropertyMap{LBHostnameOutput: tt.lb, IngressClassOutput: tt.class}
			}
			list, outputs, err := runSirius(cfg, refs, tt.dryRun)
			if wantErr(t, err, tt.wantErrHas) {
				return
			}
			spec := find(t, list, ingressType, "sirius").inputs["spec"].(map[string]any)
			rule := spec["rules"].([]any)[0].(map[string]any)
			if rule["host"] != tt.wantHost || spec["ingressClassName"] != tt.wantClass {
				t.Errorf("Ingress host %#v class %#v, want %#v %#v", rule["host"], spec["ingressClassName"], tt.wantHost, tt.wantClass)
			}
			if outputs["application_url"] != tt.wantURL || outputs["hostname"] != tt.wantHost {
				t.Errorf("outputs %v, want application_url %#v", outputs, tt.wantURL)
			}
			if !tt.dryRun && outputs["namespace"] != testNamespace {
				t.Errorf("namespace output %v, want %s", outputs["namespace"], testNamespace)
			}
		})
	}
}
