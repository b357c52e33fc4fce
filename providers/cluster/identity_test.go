package cluster

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestKubernetesID(t *testing.T) {
	meta := func(kv ...string) resource.PropertyMap {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return resource.PropertyMap{"metadata": m}
	}
	tests := []struct {
		name, typ string
		in        resource.PropertyMap
		id        string
		ok        bool
	}{
		{"namespaced", "kubernetes:core/v1:ConfigMap", meta("name", "app", "namespace", "bos"), "bos/app", true},
		{"secret namespace", "kubernetes:core/v1:Secret",
			resource.PropertyMap{"metadata": map[string]any{"name": "creds", "namespace": resource.Secret{Element: "bos"}}}, "bos/creds", true},
		{"cluster-scoped", "kubernetes:core/v1:Namespace", meta("name", "nginx-ingress"), "nginx-ingress", true},
		{"cert-manager's ClusterIssuer", "kubernetes:cert-manager.io/v1:ClusterIssuer", meta("name", "harbor-letsencrypt"), "harbor-letsencrypt", true},
		{"no namespace", "kubernetes:apps/v1:Deployment", meta("name", "web"), "", false},
		{"no name", "kubernetes:core/v1:ConfigMap", meta("namespace", "bos"), "", false},
		{"unknown name", "kubernetes:core/v1:ConfigMap",
			resource.PropertyMap{"metadata": map[string]any{"name": resource.Computed{}, "namespace": "bos"}}, "", false},
		{"helm release", helmReleaseType, resource.PropertyMap{"name": "kic", "namespace": "nginx-ingress"}, "nginx-ingress/kic", true},
		{"list", "kubernetes:core/v1:ConfigMapList", meta("name", "a", "namespace", "b"), "", false},
		{"patch", "kubernetes:core/v1:ConfigMapPatch", meta("name", "a", "namespace", "b"), "", false},
		{"another package", "aws:iam/role:Role", meta("name", "a", "namespace", "b"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := KubernetesID(tt.typ, tt.in)
			if id != tt.id || ok != tt.ok {
				t.Fatalf("KubernetesID = %q, %v; want %q, %v", id, ok, tt.id, tt.ok)
			}
		})
	}
}
