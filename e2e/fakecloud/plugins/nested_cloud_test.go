package plugins

import (
	"strings"
	"testing"
)

// cloudNestedCases are wrong nested inputs of the digitalocean and linode
// types runner's do and linode programs declare: the fakes must refuse
// each by its path, as the real plugins' schemas do.
var cloudNestedCases = []struct {
	name, pkg, typ string
	inputs         map[string]any
	want           []string
}{
	{"DOKS nodePool without size", "digitalocean", "digitalocean:index/kubernetesCluster:KubernetesCluster",
		map[string]any{"region": "sfo3", "version": "1.34.1-do.0", "nodePool": map[string]any{"name": "default", "nodeCount": 3}},
		[]string{`nodePool.size: missing required property "size"`}},
	{"DOKS nodePool nodeCount a string", "digitalocean", "digitalocean:index/kubernetesCluster:KubernetesCluster",
		map[string]any{"region": "sfo3", "version": "1.34.1-do.0", "nodePool": map[string]any{"name": "default", "size": "s-4vcpu-8gb", "nodeCount": "3"}},
		[]string{"nodePool.nodeCount: must be a number, not string"}},
	{"DOKS nodePool a list", "digitalocean", "digitalocean:index/kubernetesCluster:KubernetesCluster",
		map[string]any{"region": "sfo3", "version": "1.34.1-do.0", "nodePool": []any{map[string]any{"name": "default", "size": "s-4vcpu-8gb"}}},
		[]string{"nodePool: must be an object"}},
	{"DOKS nodePool node_count", "digitalocean", "digitalocean:index/kubernetesCluster:KubernetesCluster",
		map[string]any{"region": "sfo3", "version": "1.34.1-do.0", "nodePool": map[string]any{"name": "default", "size": "s-4vcpu-8gb", "node_count": 3}},
		[]string{`nodePool.node_count: unknown property "node_count"`}},
	{"DnsRecord ttl a string", "digitalocean", "digitalocean:index/dnsRecord:DnsRecord",
		map[string]any{"domain": "example.com", "type": "A", "value": "10.0.0.1", "ttl": "1800"},
		[]string{"ttl: must be a number, not string"}},
	{"docker credentials write a string", "digitalocean", "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials",
		map[string]any{"registryName": "r", "write": "false"},
		[]string{"write: must be a boolean, not string"}},
	{"LKE pools an object", "linode", "linode:index/lkeCluster:LkeCluster",
		map[string]any{"label": "mara-dev", "k8sVersion": "1.34", "region": "us-central", "pools": map[string]any{"type": "g6-standard-8", "count": 3}},
		[]string{"pools: must be an array"}},
	{"LKE pool without type", "linode", "linode:index/lkeCluster:LkeCluster",
		map[string]any{"label": "mara-dev", "k8sVersion": "1.34", "region": "us-central", "pools": []any{map[string]any{"count": 3}}},
		[]string{`pools[0].type: missing required property "type"`}},
	{"LKE controlPlane highAvailability a string", "linode", "linode:index/lkeCluster:LkeCluster",
		map[string]any{"label": "mara-dev", "k8sVersion": "1.34", "region": "us-central", "pools": []any{map[string]any{"type": "g6-standard-8", "count": 3}},
			"controlPlane": map[string]any{"highAvailability": "true"}},
		[]string{"controlPlane.highAvailability: must be a boolean, not string"}},
	{"LKE tags numbers", "linode", "linode:index/lkeCluster:LkeCluster",
		map[string]any{"label": "mara-dev", "k8sVersion": "1.34", "region": "us-central", "pools": []any{map[string]any{"type": "g6-standard-8", "count": 3}},
			"tags": []any{1}},
		[]string{"tags[0]: must be a string, not number"}},
}

func TestCheckRefusesCloudNestedShapes(t *testing.T) {
	providers := newProviders(t, "digitalocean", "linode")
	for _, tt := range cloudNestedCases {
		t.Run(tt.name, func(t *testing.T) {
			got := check(t, providers[tt.pkg], tt.typ, tt.inputs)
			if len(got) != len(tt.want) {
				t.Fatalf("failures %q, want %q", got, tt.want)
			}
			for i, w := range tt.want {
				path, reason, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(got[i], path+": ") || !strings.Contains(got[i], reason) {
					t.Errorf("failure %d = %q, want %q", i, got[i], w)
				}
			}
		})
	}
}
