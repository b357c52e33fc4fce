// Package docean holds the programs of the do provider's own projects, on
// DigitalOcean through Pulumi's digitalocean plugin (@pulumi/digitalocean
// 4.80.1), as MARA's pulumi/python/infrastructure/digitalocean did: the
// container registry, the DOKS cluster, the registry's credentials in the
// cluster and the DNS record of the ingress controller's host name.
package docean

import (
	"fmt"
	"regexp"
	"slices"
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
	// TierKey is the registry's subscription tier, where MARA's
	// container-registry project read it (its docean namespace).
	TierKey = "docean:container_registry_subscription_tier"
	// TierAliasKey is the same setting where MARA's example config puts
	// it (the plugin's namespace, which MARA's program never read): runner
	// reads both, and refuses them set to different tiers (the projects
	// configure their plugin explicitly, so the key never reaches it).
	TierAliasKey = "digitalocean:container_registry_subscription_tier"
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

// Tiers are the registry's subscription tiers DigitalOcean offers.
var Tiers = []string{"starter", "basic", "professional"}

// Tier returns the registry's subscription tier from the config (get
// returns a key's trimmed value, "" when unset): TierKey, else
// TierAliasKey, else DefaultTier. A value that is no tier, or the two keys
// set to different tiers, is an error naming the keys.
func Tier(get func(key string) (string, error)) (string, error) {
	var tier, from string
	for _, k := range []string{TierKey, TierAliasKey} {
		v, err := get(k)
		switch {
		case err != nil:
			return "", err
		case v == "":
			continue
		case !slices.Contains(Tiers, v):
			return "", fmt.Errorf("%s is %q: it must be one of %s; fix it with `runner config set %s <tier>`", k, v, strings.Join(Tiers, ", "), k)
		case tier != "" && v != tier:
			return "", fmt.Errorf("%s is %q but %s is %q: both set the registry's subscription tier (MARA's program read the first, its example config holds the second); remove one with `runner config rm %s`, or set both to the same tier",
				from, tier, k, v, k)
		case tier == "":
			tier, from = v, k
		}
	}
	if tier == "" {
		tier = DefaultTier
	}
	return tier, nil
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
