// Package lke holds the programs of the linode provider's own projects, on
// Linode through Pulumi's linode plugin (@pulumi/linode 5.1.1), as MARA's
// pulumi/python/infrastructure/linode did: the LKE cluster and the
// Harbor registry's credentials in the cluster.
package lke

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/cluster"
)

// The config keys of the linode provider (MARA's names).
const (
	VersionKey   = "linode:k8s_version"
	RegionKey    = "linode:region"
	TypeKey      = "linode:instance_type"
	NodeCountKey = "linode:node_count"
	HAKey        = "linode:k8s_ha"
	TokenKey     = "linode:token"
	TokenEnv     = "LINODE_TOKEN"
)

// Defaults: MARA's, but for the Kubernetes version (MARA's 1.23 is long
// out of LKE support). DefaultHA is MARA's too: its runner answered an
// empty "Enable Kubernetes HA mode [Y]" with true and its example config
// sets true (an HA control plane is billed by Linode; answer false to
// save it).
const (
	DefaultVersion   = "1.34"
	DefaultRegion    = "us-central"
	DefaultType      = "g6-standard-8"
	DefaultNodeCount = "3"
	DefaultHA        = "true"
)

// Provider declares the project's linode provider: configured with the
// secret linode:token, or with nothing when LINODE_TOKEN is set (only the
// linode plugin receives it).
func Provider(ctx *engine.Context, envToken bool) *engine.Resource {
	return cluster.TokenProvider(ctx, "pulumi:providers:linode", "linode", TokenKey, envToken)
}

var labelCut = regexp.MustCompile(`[^A-Za-z0-9-]+`)

// Label is the cluster's label on stack: letters, digits and dashes, at
// most 32 characters; a longer name is cut and ends with a hash of it.
func Label(stack string) string {
	n := strings.Trim(labelCut.ReplaceAllString("mara-"+stack, "-"), "-")
	if len(n) <= 32 {
		return n
	}
	sum := sha256.Sum256([]byte(n))
	return strings.TrimRight(n[:24], "-") + "-" + hex.EncodeToString(sum[:])[:7]
}

// StackTag is the cluster's tag naming stack: the stack's name when
// Linode takes it as a tag (3 to 50 characters), else the cluster's label
// (a name such as qa would fail the create with Linode's 400).
func StackTag(stack string) string {
	if len(stack) >= 3 && len(stack) <= 50 {
		return stack
	}
	return Label(stack)
}

// Cluster is the lke project: the LKE cluster with one pool. Outputs:
// cluster_name, cluster_id, endpoint, kubeconfig (secret: LKE's base64
// kubeconfig decoded, for the kubeconfig project and the hook).
func Cluster(envToken bool) engine.Program {
	return func(ctx *engine.Context) error {
		s, err := cluster.Settings(ctx, cluster.Default{Key: VersionKey, Value: DefaultVersion}, cluster.Default{Key: RegionKey, Value: DefaultRegion},
			cluster.Default{Key: TypeKey, Value: DefaultType}, cluster.Default{Key: NodeCountKey, Value: DefaultNodeCount}, cluster.Default{Key: HAKey, Value: DefaultHA})
		if err != nil {
			return err
		}
		nodes, err := cluster.NodeCount(NodeCountKey, s[3])
		if err != nil {
			return err
		}
		ha, err := strconv.ParseBool(s[4])
		if err != nil {
			return fmt.Errorf("%s is %q: it must be true or false", HAKey, s[4])
		}
		p := Provider(ctx, envToken)
		c := ctx.Resource("linode:index/lkeCluster:LkeCluster", "cluster", engine.Inputs{
			"label": Label(ctx.Stack()), "k8sVersion": s[0], "region": s[1],
			"pools":        []any{map[string]any{"type": s[2], "count": nodes}},
			"controlPlane": map[string]any{"highAvailability": ha},
			"tags":         []any{"mara", StackTag(ctx.Stack())},
		}, engine.Provider(p))
		endpoint := c.Output("apiEndpoints").Apply(func(v any) (any, error) {
			if l, _ := v.([]any); len(l) > 0 {
				return l[0], nil
			}
			return "", nil
		})
		cluster.ExportCluster(ctx, c, c.Output("label"), endpoint, c.Output("kubeconfig").Apply(func(v any) (any, error) {
			b, err := Decode(v)
			return string(b), err
		}))
		return nil
	}
}

// Decode base64-decodes LKE's kubeconfig output.
func Decode(v any) ([]byte, error) {
	s, _ := v.(string)
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("the LKE cluster's kubeconfig is not base64 (%v)", err)
	}
	return b, nil
}

// Credentials is the container-registry-credentials project: Harbor's
// admin credentials as a Secret of type kubernetes.io/dockerconfigjson in
// the ingress controller's namespace. Outputs: secret, namespace.
func Credentials(ctx *engine.Context) error {
	url := ctx.StackReference("harbor").Output("url")
	ns := ctx.StackReference(cluster.IngressNamespaceProject).Output(cluster.NamespaceOutput)
	pw, ok := ctx.Config(cluster.HarborAdminKey)
	if !ok {
		return fmt.Errorf("%s is not set: give Harbor's admin password with `runner config set --secret %s`", cluster.HarborAdminKey, cluster.HarborAdminKey)
	}
	docker := engine.All(url, pw).Apply(func(v any) (any, error) {
		l, _ := v.([]any)
		host, _ := l[0].(string)
		host = strings.TrimPrefix(strings.TrimPrefix(host, "https://"), "http://")
		pass, _ := l[1].(string)
		auth := base64.StdEncoding.EncodeToString([]byte("admin:" + pass))
		data, err := json.Marshal(map[string]any{"auths": map[string]any{host: map[string]any{"auth": auth}}})
		return string(data), err
	})
	k8s := cluster.Provider(ctx)
	ctx.Resource("kubernetes:core/v1:Secret", "registry-credentials", engine.Inputs{
		"metadata":   map[string]any{"name": "registry-credentials", "namespace": ns},
		"type":       "kubernetes.io/dockerconfigjson",
		"stringData": map[string]any{".dockerconfigjson": engine.Secret(docker)},
	}, engine.Provider(k8s))
	ctx.Export("secret", "registry-credentials")
	ctx.Export(cluster.NamespaceOutput, ns)
	return nil
}
