package cluster

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
)

// maraConfig is a stack config like MARA's example (plain values as the
// config file gives them: strings), with its secrets.
func maraConfig() map[string]any {
	return map[string]any{
		"aws:region":               "us-east-1",
		"aws:secretKey":            resource.Secret{Element: "aws-s3cret"},
		"kic-helm:chart_version":   "0.15.2",
		"kic:image_name":           "nginx/nginx-ingress:2.4.2",
		"logstore:helm_timeout":    "300",
		"logstore:master_replicas": "3",
		"prometheus:helm_repo_url": "https://https://prometheus-community.github.io/helm-charts",
		"prometheus:adminpass":     resource.Secret{Element: "graf-pw"},
		"sirius:accounts_pwd":      resource.Secret{Element: "acc-pw"},
		"sirius:ledger_pwd":        resource.Secret{Element: "led-pw"},
		"sirius:demo_login_user":   "testuser",
	}
}

func TestProgramsDeclareContractResourcesAndExport(t *testing.T) {
	c := loadContract(t)
	tests := []struct {
		name    string
		prog    engine.Program
		outputs []string
	}{
		{"secrets", Secrets, []string{"namespaces", "secrets"}},
		{"ingress-controller-namespace", IngressNamespace, []string{"namespace"}},
		{"ingress-controller", IngressController, []string{"ingress_class", "lb_ingress_hostname", "lb_ingress_ip", "namespace", "release", "service"}},
		{"logstore", Logstore, []string{"elastic_hostname", "kibana_hostname", "namespace"}},
		{"logagent", Logagent, []string{"namespace"}},
		{"certmgr", Certmgr, []string{"crds_installed", "namespace"}},
		{"prometheus", Prometheus, []string{"grafana_service", "namespace", "prom_hostname", "prometheus_service", "statsd_service"}},
		{"observability", Observability, []string{"collector_endpoint", "collector_http_endpoint", "collector_service", "namespace"}},
		{"kubeconfig from eks", FromProject("eks"), []string{"cluster_name", "kubeconfig"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := run(t, tt.prog, maraConfig())
			if err != nil {
				t.Fatal(err)
			}
			checkDeclared(t, c, r)
			var got []string
			for k := range r.outputs {
				got = append(got, k)
			}
			sort.Strings(got)
			if !slices.Equal(got, tt.outputs) {
				t.Errorf("outputs %q, want %q", got, tt.outputs)
			}
			if shown := fmt.Sprint(r.outputs); strings.Contains(shown, "pw") || strings.Contains(shown, "s3cret") {
				t.Errorf("a secret shows in the outputs: %s", shown)
			}
		})
	}
}

func TestGroupSecrets(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want map[string][]string // namespace -> data keys
		err  string
	}{
		{"groups by namespace, provider packages left out",
			[]string{"aws:secretKey", "kubernetes:token", "digitalocean:token", "linode:token", "prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd"},
			map[string][]string{"prometheus": {"adminpass"}, "sirius": {"accounts_pwd", "ledger_pwd"}}, ""},
		{"none", nil, map[string][]string{}, ""},
		{"a key without a namespace is left out", []string{"plain"}, map[string][]string{}, ""},
		{"a namespace Kubernetes refuses", []string{"My_App:pw"}, nil, `namespace "My_App" must be a Kubernetes namespace name`},
		{"a data key Kubernetes refuses", []string{"app:pass word"}, nil, `"pass word" must be a Secret data key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			groups, err := groupSecrets(tt.keys)
			if wantErr(t, err, tt.err) {
				return
			}
			got := map[string][]string{}
			for _, g := range groups {
				var ks []string
				for k, full := range g.keys {
					if full != g.namespace+":"+k {
						t.Errorf("data key %s maps to %s", k, full)
					}
					ks = append(ks, k)
				}
				sort.Strings(ks)
				got[g.namespace] = ks
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("groups %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSecretsPutsSecretConfigIntoTheCluster(t *testing.T) {
	r, err := run(t, Secrets, maraConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cluster", "prometheus", "prometheus-secrets", "sirius", "sirius-secrets"}
	if !slices.Equal(r.order, want) {
		t.Fatalf("decl %q, want %q", r.order, want)
	}
	sec := r.byName["sirius-secrets"]
	data, secret := sec.inputs["stringData"].(resource.Secret)
	if !secret {
		t.Fatalf("stringData %#v is not secret", sec.inputs["stringData"])
	}
	if !reflect.DeepEqual(data.Element, map[string]any{"accounts_pwd": "acc-pw", "ledger_pwd": "led-pw"}) {
		t.Errorf("stringData %v", data.Element)
	}
	if ns := dig(sec.inputs, "metadata", "namespace"); ns != "sirius" || sec.inputs["type"] != "Opaque" {
		t.Errorf("secret in namespace %v of type %v", ns, sec.inputs["type"])
	}
	wantOut := map[string]any{"prometheus": "prometheus-secrets", "sirius": "sirius-secrets"}
	if !reflect.DeepEqual(r.outputs["secrets"], wantOut) {
		t.Errorf("secrets output %v, want %v", r.outputs["secrets"], wantOut)
	}
	if !reflect.DeepEqual(r.outputs["namespaces"], map[string]any{"prometheus": "prometheus", "sirius": "sirius"}) {
		t.Errorf("namespaces output %v", r.outputs["namespaces"])
	}
}

func TestSplitImage(t *testing.T) {
	tests := []struct {
		ref  string
		want image
		err  bool
	}{
		{"nginx/nginx-ingress:2.4.2", image{repository: "nginx/nginx-ingress", tag: "2.4.2"}, false},
		{"docker.io/nginx/nginx-ingress:2.4.2-alpine", image{repository: "docker.io/nginx/nginx-ingress", tag: "2.4.2-alpine"}, false},
		{"private-registry.nginx.com/nginx-ic/nginx-plus-ingress:2.4.2-ot", image{repository: "private-registry.nginx.com/nginx-ic/nginx-plus-ingress", tag: "2.4.2-ot"}, false},
		{"localhost:5000/kic", image{repository: "localhost:5000/kic"}, false},
		{"localhost:5000/kic:1.0", image{repository: "localhost:5000/kic", tag: "1.0"}, false},
		{"nginx/nginx-ingress@sha256:abc", image{repository: "nginx/nginx-ingress", digest: "sha256:abc"}, false},
		{"nginx/nginx-ingress", image{repository: "nginx/nginx-ingress"}, false},
		{"nginx/nginx-ingress:", image{}, true},
		{"", image{}, true},
		{"nginx/nginx ingress:1", image{}, true},
		{"nginx@abc", image{}, true},
	}
	for _, tt := range tests {
		got, err := splitImage(tt.ref)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("splitImage(%q) = %+v, %v; want %+v, error %v", tt.ref, got, err, tt.want, tt.err)
		}
	}
}

func TestIngressController(t *testing.T) {
	tests := []struct {
		name              string
		cfg               map[string]any
		image             map[string]any
		hostname, version string
		repositoryOpts    any
	}{
		{"MARA's image and chart", maraConfig(), map[string]any{"repository": "nginx/nginx-ingress", "tag": "2.4.2"},
			"lb.example.com", "0.15.2", map[string]any{"repo": "https://helm.nginx.com/stable"}},
		{"defaults and an fqdn", map[string]any{"kic-helm:fqdn": "demo.example.com"}, map[string]any{"repository": "nginx/nginx-ingress"},
			"demo.example.com", kicChart.version, map[string]any{"repo": "https://helm.nginx.com/stable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := run(t, IngressController, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			rel := r.byName["kic"]
			if got := dig(rel.inputs, "values", "controller", "image"); !reflect.DeepEqual(got, tt.image) {
				t.Errorf("image values %v, want %v", got, tt.image)
			}
			if rel.inputs["version"] != tt.version || !reflect.DeepEqual(rel.inputs["repositoryOpts"], tt.repositoryOpts) || rel.inputs["namespace"] != IngressNamespaceName {
				t.Errorf("release %v", rel.inputs)
			}
			if got := dig(rel.inputs, "values", "controller", "service", "create"); got != false {
				t.Errorf("the chart's own service is not off: create = %v", got)
			}
			svc := r.byName["kic-nginx-ingress"]
			pods := dig(rel.inputs, "values", "controller", "pod", "extraLabels")
			if sel := dig(svc.inputs, "spec", "selector"); !reflect.DeepEqual(sel, pods) || sel == nil {
				t.Errorf("the Service selects %v, the controller's pods carry %v", sel, pods)
			}
			if dig(svc.inputs, "spec", "type") != "LoadBalancer" {
				t.Errorf("Service type %v", dig(svc.inputs, "spec", "type"))
			}
			if r.outputs[LBHostnameOutput] != tt.hostname || r.outputs[LBIPOutput] != "203.0.113.7" || r.outputs[IngressClassOutput] != "nginx" {
				t.Errorf("outputs %v", r.outputs)
			}
		})
	}
}

func TestIngressControllerRefusesABadImage(t *testing.T) {
	_, err := run(t, IngressController, map[string]any{"kic:image_name": "nginx/nginx-ingress:"})
	if err == nil || !strings.Contains(err.Error(), "kic:image_name") {
		t.Fatalf("error %v, want one naming kic:image_name", err)
	}
}

func TestChartResolve(t *testing.T) {
	tests := []struct {
		name string
		cfg  map[string]any
		want source
		err  string
	}{
		{"defaults", nil, source{"nginx-ingress", kicChart.version, "https://helm.nginx.com/stable", 300}, ""},
		{"overrides", map[string]any{"kic-helm:chart_name": "kic", "kic-helm:chart_version": "1.0.0", "kic-helm:helm_repo_url": "oci://ghcr.io/nginx/charts", "kic-helm:helm_timeout": "900"},
			source{"kic", "1.0.0", "oci://ghcr.io/nginx/charts", 900}, ""},
		{"a doubled scheme", map[string]any{"kic-helm:helm_repo_url": "https://https://helm.nginx.com/stable"},
			source{"nginx-ingress", kicChart.version, "https://helm.nginx.com/stable", 300}, ""},
		{"Bitnami's HTTPS repository (MARA's logstore)", map[string]any{"kic-helm:helm_repo_url": "https://charts.bitnami.com/bitnami/"},
			source{"nginx-ingress", kicChart.version, "oci://registry-1.docker.io/bitnamicharts", 300}, ""},
		{"a bad timeout", map[string]any{"kic-helm:helm_timeout": "5m"}, source{}, `kic-helm:helm_timeout must be a whole number of at least 1, not "5m"`},
		{"a bad repository", map[string]any{"kic-helm:helm_repo_url": "helm.nginx.com"}, source{}, "kic-helm:helm_repo_url must be the URL of a Helm chart repository"},
		{"a secret version", map[string]any{"kic-helm:chart_version": resource.Secret{Element: "1"}}, source{}, "is secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got source
			_, err := run(t, func(ctx *engine.Context) error {
				var err error
				got, err = kicChart.resolve(ctx)
				return err
			}, tt.cfg)
			if wantErr(t, err, tt.err) {
				return
			}
			if got != tt.want {
				t.Errorf("resolve = %+v; want %+v", got, tt.want)
			}
		})
	}
}

// TestLogstoreImagesAndDisks: Bitnami's images come from bitnamilegacy
// (versioned tags left docker.io/bitnami in 2025), and the disks are off
// unless logstore:persistence says otherwise (found by review).
func TestLogstoreImagesAndDisks(t *testing.T) {
	for _, tt := range []struct {
		persistence any
		want        bool
		err         string
	}{{nil, false, ""}, {"true", true, ""}, {"maybe", false, "logstore:persistence"}} {
		cfg := map[string]any{}
		if tt.persistence != nil {
			cfg["logstore:persistence"] = tt.persistence
		}
		r, err := run(t, Logstore, cfg)
		if wantErr(t, err, tt.err) {
			continue
		}
		values := r.byName["elastic"].inputs["values"].(map[string]any)
		if got := dig(values, "image", "repository"); got != "bitnamilegacy/elasticsearch" {
			t.Errorf("image %v", got)
		}
		if got := dig(values, "kibana", "image", "repository"); got != "bitnamilegacy/kibana" {
			t.Errorf("kibana image %v", got)
		}
		if got := dig(values, "data", "persistence", "enabled"); got != tt.want {
			t.Errorf("persistence %v with logstore:persistence %v, want %v", got, tt.persistence, tt.want)
		}
	}
}

// TestIngressStatusReported: the controller reports the load balancer
// Service's address on Ingresses, or sirius's Ingress never gets one (and
// Pulumi's kubernetes plugin waits for it until the timeout).
func TestIngressStatusReported(t *testing.T) {
	r, err := run(t, IngressController, nil)
	if err != nil {
		t.Fatal(err)
	}
	values := r.byName["kic"].inputs["values"].(map[string]any)
	if got := dig(values, "controller", "reportIngressStatus", "externalService"); got != "kic-nginx-ingress" {
		t.Errorf("controller.reportIngressStatus.externalService = %v", got)
	}
}

// TestCertmgrCRDValues: charts 1.15 to 1.18 refuse installCRDs together
// with crds.enabled, so the values follow the version (found by review).
func TestCertmgrCRDValues(t *testing.T) {
	for _, tt := range []struct {
		version string
		want    map[string]any
	}{
		{"v1.10.0", map[string]any{"installCRDs": true}},
		{"v1.14.5", map[string]any{"installCRDs": true}},
		{"v1.15.0", map[string]any{"crds": map[string]any{"enabled": true}}},
		{"1.18.2", map[string]any{"crds": map[string]any{"enabled": true}}},
		{"v1.19.0", map[string]any{"crds": map[string]any{"enabled": true}}},
		{"latest", map[string]any{"crds": map[string]any{"enabled": true}}},
	} {
		if got := crdValues(tt.version); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("crdValues(%s) = %v, want %v", tt.version, got, tt.want)
		}
	}
	r, err := run(t, Certmgr, map[string]any{"certmgr:chart_version": "v1.10.0"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.byName["certmgr"].inputs["values"]; !reflect.DeepEqual(got, map[string]any{"installCRDs": true}) {
		t.Errorf("MARA's cert-manager v1.10.0 gets values %v", got)
	}
}

func TestOCIChartHasNoRepositoryOpts(t *testing.T) {
	r, err := run(t, Logstore, nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := r.byName["elastic"]
	if rel.inputs["chart"] != "oci://registry-1.docker.io/bitnamicharts/elasticsearch" || rel.inputs["repositoryOpts"] != nil {
		t.Errorf("chart %v, repositoryOpts %v", rel.inputs["chart"], rel.inputs["repositoryOpts"])
	}
	if rel.inputs["timeout"] != float64(600) {
		t.Errorf("logstore's default timeout %v, want 600 (MARA's issue #191)", rel.inputs["timeout"])
	}
}

func TestLogstoreReplicas(t *testing.T) {
	r, err := run(t, Logstore, map[string]any{"logstore:master_replicas": "3", "logstore:data_replicas": "2"})
	if err != nil {
		t.Fatal(err)
	}
	v := r.byName["elastic"].inputs["values"]
	for role, want := range map[string]float64{"master": 3, "data": 2, "ingest": 1, "coordinating": 1} {
		if got := dig(v, role, "replicaCount"); got != want {
			t.Errorf("%s replicas %v, want %v", role, got, want)
		}
	}
	if _, err := run(t, Logstore, map[string]any{"logstore:data_replicas": "0"}); err == nil || !strings.Contains(err.Error(), "logstore:data_replicas") {
		t.Errorf("0 data replicas: error %v", err)
	}
}

func TestLogagentShipsToTheLogstore(t *testing.T) {
	r, err := run(t, Logagent, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := dig(r.byName["filebeat"].inputs, "values", "daemonset", "filebeatConfig", "filebeat.yml").(string)
	if !strings.Contains(cfg, "http://elastic-elasticsearch.logstore.svc.cluster.local:9200") {
		t.Errorf("filebeat.yml does not point at the logstore:\n%s", cfg)
	}
}

func TestPrometheusKeepsThePasswordOutOfHelmValues(t *testing.T) {
	r, err := run(t, Prometheus, maraConfig())
	if err != nil {
		t.Fatal(err)
	}
	rel := r.byName["prometheus"]
	if shown := fmt.Sprintf("%v", rel.inputs); strings.Contains(shown, "graf-pw") {
		t.Errorf("the Grafana password is in the release's inputs: %s", shown)
	}
	if got := dig(rel.inputs, "values", "grafana", "admin", "existingSecret"); got != "prometheus-secrets" {
		t.Errorf("grafana.admin.existingSecret = %v", got)
	}
	if rel.inputs["namespace"] != "prometheus" || rel.inputs["repositoryOpts"].(map[string]any)["repo"] != "https://prometheus-community.github.io/helm-charts" {
		t.Errorf("release %v", rel.inputs)
	}
	if r.outputs[PromHostnameOutput] != "prometheus-kube-prometheus-prometheus.prometheus.svc.cluster.local" {
		t.Errorf("prom_hostname %v", r.outputs[PromHostnameOutput])
	}
}

func TestObservabilityUsesCertManagerWhenItsCRDsAreThere(t *testing.T) {
	r, err := run(t, Observability, nil)
	if err != nil {
		t.Fatal(err)
	}
	hooks := dig(r.byName["otel-operator"].inputs, "values", "admissionWebhooks")
	if dig(hooks, "certManager", "enabled") != true || dig(hooks, "autoGenerateCert", "enabled") != false {
		t.Errorf("admissionWebhooks %v", hooks)
	}
	if r.outputs[CollectorEndpointOutput] != "otel-collector.observability.svc.cluster.local:4317" {
		t.Errorf("collector_endpoint %v", r.outputs[CollectorEndpointOutput])
	}
}

func TestFromProjectKeepsTheKubeconfigSecret(t *testing.T) {
	r, err := run(t, FromProject("eks"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.outputs[KubeconfigOutput].(resource.Secret); !ok || r.outputs[ClusterNameOutput] != "eks-1" {
		t.Errorf("outputs %#v", r.outputs)
	}
}

// wantErr fails t unless err holds want (want given) or is nil (want
// empty); it reports whether an error was wanted, so that the case has
// nothing more to check.
func wantErr(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one holding %q", err, want)
	}
	return true
}
