package cluster

import (
	"strings"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
)

// KubernetesPlugin is the kubernetes plugin the Kubernetes projects were
// written for (@pulumi/kubernetes 4.34.2), with its identity rule.
func KubernetesPlugin() providers.PluginSpec {
	return providers.PluginSpec{Name: "kubernetes", Version: "4.34.2", Identity: KubernetesID}
}

// helmReleaseType is the Helm release of the kubernetes plugin, whose ID
// is its release namespace and name.
const helmReleaseType = "kubernetes:helm.sh/v3:Release"

// clusterScoped are the kinds of objects that live in no namespace: their
// ID is their name alone.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "StorageClass": true, "CSIDriver": true, "CSINode": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true, "PriorityClass": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true, "ValidatingAdmissionPolicy": true,
	"ValidatingAdmissionPolicyBinding": true, "APIService": true, "IngressClass": true, "RuntimeClass": true,
	"VolumeAttachment": true, "CertificateSigningRequest": true, "FlowSchema": true, "PriorityLevelConfiguration": true,
	"ClusterIssuer": true, // cert-manager's (Harbor's certificate on linode)
}

// KubernetesID is the kubernetes plugin's identity rule: the ID its Read
// takes, from an object's checked inputs. A namespaced object is
// "<metadata.namespace>/<metadata.name>", a cluster-scoped one (Namespace,
// ClusterRole, ...) its name, and a Helm release "<namespace>/<name>" of
// its own inputs. Lists, patches and objects without a namespace in their
// inputs (the provider's default namespace decides it) are not told.
func KubernetesID(typ string, inputs resource.PropertyMap) (string, bool) {
	if typ == helmReleaseType {
		return namespaced(inputs, "namespace", "name")
	}
	kind := typ[strings.LastIndex(typ, ":")+1:]
	if !strings.HasPrefix(typ, "kubernetes:") || strings.HasSuffix(kind, "List") || strings.HasSuffix(kind, "Patch") {
		return "", false
	}
	var m resource.PropertyMap
	switch meta := unsecret(inputs["metadata"]).(type) {
	case map[string]any:
		m = meta
	case resource.PropertyMap:
		m = meta
	default:
		return "", false
	}
	if clusterScoped[kind] {
		name, err := m.String("name", "")
		return name, err == nil && name != ""
	}
	return namespaced(m, "namespace", "name")
}

// namespaced returns "<namespace>/<name>" of the keys of m, when both are
// known strings.
func namespaced(m resource.PropertyMap, nsKey, nameKey string) (string, bool) {
	ns, err1 := m.String(nsKey, "")
	name, err2 := m.String(nameKey, "")
	if err1 != nil || err2 != nil || ns == "" || name == "" {
		return "", false
	}
	return ns + "/" + name, true
}

func unsecret(v any) any { v, _ = resource.Unsecret(v); return v }
