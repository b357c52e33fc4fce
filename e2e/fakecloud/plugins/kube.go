package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// releaseType is the Helm release's type token.
const releaseType = "kubernetes:helm.sh/v3:Release"

// kubeConfigKeys are the real kubernetes provider's configuration keys.
var kubeConfigKeys = []string{
	"kubeconfig", "context", "cluster", "namespace", "enableServerSideApply", "deleteUnreachable",
	"skipUpdateUnreachable", "suppressHelmHookWarnings", "helmReleaseSettings", "kubeClientSettings",
	"renderYamlToDirectory", "enableConfigMapMutable", "strictMode",
}

// clusterScoped are the kinds that live in no namespace.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"CustomResourceDefinition": true, "StorageClass": true, "PriorityClass": true, "CSIDriver": true, "CSINode": true,
	"IngressClass": true, "RuntimeClass": true, "APIService": true, "MutatingWebhookConfiguration": true,
	"ValidatingWebhookConfiguration": true, "ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"MutatingAdmissionPolicy": true, "MutatingAdmissionPolicyBinding": true, "VolumeAttachment": true,
	"CertificateSigningRequest": true, "FlowSchema": true, "PriorityLevelConfiguration": true, "ClusterIssuer": true,
}

// eksRegion finds the region in an EKS API server's host name.
var eksRegion = regexp.MustCompile(`\.([a-z]{2}(-gov)?-[a-z]+-[0-9])\.eks\.amazonaws\.com`)

// kubeCloud is the fake kubernetes provider.
type kubeCloud struct {
	contract *Contract
	mu       sync.Mutex
	target   kubeTarget
	ns       string // the default namespace
}

func (c *kubeCloud) configKeys() []string { return kubeConfigKeys }

// checkConfig leaves the kubeconfig to Configure, as the real provider does.
func (c *kubeCloud) checkConfig(config) []plugin.CheckFailure { return nil }

func (c *kubeCloud) configure(cfg config) error {
	t, err := loadKubeconfig(cfg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.target, c.ns = t, firstOf(cfg["namespace"], t.namespace, "default")
	return nil
}

// kind returns the kind of a kubernetes token ("kubernetes:core/v1:Service" → "Service").
func kind(typ string) string { return typ[strings.LastIndex(typ, ":")+1:] }

// fill sets the apiVersion and kind constants and autonames
// metadata.name (a Helm release's name) when absent, keeping the old one.
func (c *kubeCloud) fill(typ string, req plugin.CheckRequest, news resource.PropertyMap) {
	spec := c.contract.Resources[typ]
	for _, k := range []resource.PropertyKey{"apiVersion", "kind"} {
		if in, ok := spec.Inputs[string(k)]; ok && in.Const != nil && news[k].IsNull() {
			news[k] = resource.NewPropertyValue(in.Const)
		}
	}
	if typ == releaseType {
		if news["name"].IsNull() {
			news["name"] = autoname(req, req.Olds["name"])
		}
		return
	}
	if _, ok := spec.Inputs["metadata"]; !ok || strings.HasSuffix(typ, "Patch") || strings.HasSuffix(typ, "List") {
		return
	}
	meta := news["metadata"]
	if meta.IsNull() {
		meta = resource.NewObjectProperty(resource.PropertyMap{})
	}
	if !meta.IsObject() {
		return // a secret, an unknown or a wrong type: left to the check
	}
	m := meta.ObjectValue().Copy()
	if m["name"].IsNull() && m["generateName"].IsNull() {
		var old resource.PropertyValue
		if o := Plain(req.Olds["metadata"]); o.IsObject() {
			old = o.ObjectValue()["name"]
		}
		m["name"] = autoname(req, old)
		news["metadata"] = resource.NewObjectProperty(m)
	}
}

// autoname returns old when set, else the resource's name with 7 hex
// digits derived from the random seed, as Pulumi's providers autoname.
func autoname(req plugin.CheckRequest, old resource.PropertyValue) resource.PropertyValue {
	if !old.IsNull() {
		return old
	}
	seed := req.RandomSeed
	if len(seed) == 0 {
		seed = []byte(randHex(32))
	}
	sum := sha256.Sum256(seed)
	return resource.NewStringProperty(req.Name + "-" + hex.EncodeToString(sum[:4])[:7])
}

// nameAndNamespace returns a resource's name and namespace ("" when it is
// cluster-scoped) from its inputs.
func (c *kubeCloud) nameAndNamespace(typ string, inputs resource.PropertyMap) (name, ns string) {
	str := func(v resource.PropertyValue) string {
		if v = Plain(v); v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	c.mu.Lock()
	def := c.ns
	c.mu.Unlock()
	if typ == releaseType {
		return str(inputs["name"]), firstOf(str(inputs["namespace"]), def)
	}
	var meta resource.PropertyMap
	if m := Plain(inputs["metadata"]); m.IsObject() {
		meta = m.ObjectValue()
	}
	if clusterScoped[kind(typ)] {
		return str(meta["name"]), ""
	}
	return str(meta["name"]), firstOf(str(meta["namespace"]), def)
}

// newID is "<namespace>/<name>", or the name of a cluster-scoped resource.
func (c *kubeCloud) newID(typ string, inputs resource.PropertyMap) string {
	name, ns := c.nameAndNamespace(typ, inputs)
	if name == "" {
		name = strings.ToLower(kind(typ)) + "-" + randHex(8)
	}
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// replaces: a new name or namespace (metadata's, or a Helm release's).
func (c *kubeCloud) replaces(typ string, key resource.PropertyKey, olds, news resource.PropertyMap) bool {
	if typ == releaseType {
		return key == "name" || key == "namespace"
	}
	if key != "metadata" {
		return false
	}
	oldName, oldNS := c.nameAndNamespace(typ, olds)
	newName, newNS := c.nameAndNamespace(typ, news)
	return oldName != newName || oldNS != newNS
}

func (c *kubeCloud) beforeDelete(*store, *Record, resource.PropertyMap) error { return nil }

// region returns the AWS region of the cluster (for load balancer names):
// the EKS server's, else $AWS_REGION's, else us-east-1.
func (c *kubeCloud) region() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := eksRegion.FindStringSubmatch(c.target.server); m != nil {
		return m[1]
	}
	return "us-east-1"
}

// onEKS reports whether the cluster is EKS's, or a server of no known
// cloud (the tests' kubeconfig provider): neither DOKS nor LKE.
func (c *kubeCloud) onEKS() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !strings.Contains(c.target.server, ".k8s.ondigitalocean.com") && !strings.Contains(c.target.server, ".linodelke.net")
}

// onLKE reports whether the cluster is an LKE cluster.
func (c *kubeCloud) onLKE() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Contains(c.target.server, ".linodelke.net")
}

// newUID returns a Kubernetes UID.
func newUID() resource.PropertyValue { return resource.NewStringProperty(uuid.NewString()) }
