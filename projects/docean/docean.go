// Package docean holds the programs of the do provider's own projects, on
// DigitalOcean through Pulumi's digitalocean plugin (@pulumi/digitalocean
// 4.80.1), as MARA's pulumi/python/infrastructure/digitalocean did: the
// container registry, the DOKS cluster, the registry's credentials in the
// cluster and the DNS record of the ingress controller's host name.
package docean

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/cluster"
)

// The config keys of the do provider (MARA's names).
const (
	VersionKey   = "docean:k8s_version"
	RegionKey    = "docean:region"
	SizeKey      = "docean:instance_size"
	NodeCountKey = "docean:node_count"
	// TierKey is the registry's subscription tier; MARA put it in the
	// plugin's namespace, which runner keeps (the projects configure
	// their plugin explicitly, so the key never reaches it).
	TierKey = "digitalocean:container_registry_subscription_tier"
	// TokenKey is the API token when DIGITALOCEAN_TOKEN is not set.
	TokenKey = "digitalocean:token"
	// TokenEnv is the environment variable of the API token.
	TokenEnv = "DIGITALOCEAN_TOKEN"
)

// The resource types the programs declare.
const (
	providerType    = "pulumi:providers:digitalocean"
	registryType    = "digitalocean:index/containerRegistry:ContainerRegistry"
	credentialsType = "digitalocean:index/containerRegistryDockerCredentials:ContainerRegistryDockerCredentials"
	clusterType     = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	dnsRecordType   = "digitalocean:index/dnsRecord:DnsRecord"
)

// Provider declares the project's digitalocean provider: configured with
// the secret digitalocean:token, or with nothing when envToken says
// DIGITALOCEAN_TOKEN is set.
func Provider(ctx *engine.Context, envToken bool) *engine.Resource {
	return cluster.TokenProvider(ctx, providerType, "digitalocean", TokenKey, envToken)
}

// setting returns the trimmed plain value of key, or def when unset.
func setting(ctx *engine.Context, key, def string) (string, error) {
	return cluster.Setting(ctx, key, def)
}

var nameCut = regexp.MustCompile(`[^a-z0-9-]+`)

// Name is the name of a DigitalOcean resource of the stack: lower-case
// letters, digits and dashes, at most max characters, as DOKS and the
// registry accept.
func Name(prefix, stack string, max int) string {
	n := strings.Trim(nameCut.ReplaceAllString(strings.ToLower(prefix+"-"+stack), "-"), "-")
	if len(n) > max {
		n = strings.TrimRight(n[:max], "-")
	}
	return n
}

// SplitFQDN splits a host name at its first dot into the record's name and
// its domain, as MARA's dns-record did.
func SplitFQDN(fqdn string) (name, domain string, err error) {
	name, domain, ok := strings.Cut(strings.TrimSuffix(fqdn, "."), ".")
	if !ok || name == "" || !strings.Contains(domain, ".") {
		return "", "", fmt.Errorf("kic-helm:fqdn is %q: it must be a host name in a domain of your DigitalOcean account, such as mara.example.com", fqdn)
	}
	return name, domain, nil
}
