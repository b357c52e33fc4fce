package docean

import (
	"fmt"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/cluster"
)

// Defaults of the do provider's config: MARA's, but for the Kubernetes
// version (MARA's 1.22 is long out of DOKS support).
const (
	DefaultVersion   = "1.34.1-do.0"
	DefaultRegion    = "sfo3"
	DefaultSize      = "s-4vcpu-8gb"
	DefaultNodeCount = "3"
	DefaultTier      = "starter"
)

// Registry is the container-registry project: MARA's registry for the
// ingress controller's images. An account has one registry, so the
// account's own is used when it has one, as MARA did: read, never
// declared, so destroy leaves it. Otherwise the project makes one, named
// by the digitalocean plugin as MARA's was ("registry-" and a random
// suffix, kept from then on: a registry's name is unique across all of
// DigitalOcean, so a fixed name such as mara-dev could belong to someone
// else), which is then the stack's own on later runs (its state records
// it) and which destroy deletes. Outputs: registry_name, endpoint,
// server_url, registry_created (whether this stack made it).
func Registry(acct Account) engine.Program {
	return func(ctx *engine.Context) error {
		region, err := setting(ctx, RegionKey, DefaultRegion)
		if err != nil {
			return err
		}
		tier, err := Tier(func(k string) (string, error) { return setting(ctx, k, "") })
		if err != nil {
			return err
		}
		if _, ours := ctx.Recorded(registryType, registryName); !ours {
			token := acct.EnvToken
			if token == "" {
				token, _ = ctx.Plaintext(TokenKey)
			}
			found, err := acct.Registry(ctx.Context(), token)
			if err != nil {
				return err
			}
			if found != nil {
				ctx.Log("using the account's container registry %s (region %s), which this stack did not make: an account has one; destroy leaves it", found.Name, found.Region)
				ctx.Export("registry_name", found.Name)
				ctx.Export("endpoint", found.Endpoint())
				ctx.Export("server_url", RegistryServer)
				ctx.Export("registry_created", false)
				return nil
			}
		}
		p := Provider(ctx, acct.EnvToken != "")
		reg := ctx.Resource(registryType, registryName, engine.Inputs{
			"subscriptionTierSlug": tier, "region": region,
		}, engine.Provider(p))
		ctx.Export("registry_name", reg.Output("name"))
		ctx.Export("endpoint", reg.Output("endpoint"))
		ctx.Export("server_url", reg.Output("serverUrl"))
		ctx.Export("registry_created", true)
		return nil
	}
}

// registryName is the name of the registry resource in the project.
const registryName = "registry"

// ExpiresAtOutput is the domk8s output holding when the kubeconfig's
// token expires (DOKS's kubeConfigs[0].expiresAt, RFC 3339): DigitalOcean
// gives tokens that last 7 days, and the digitalocean plugin fetches new
// ones when it reads a cluster whose token has expired (a refresh).
const ExpiresAtOutput = "kubeconfig_expires_at"

// Cluster is the domk8s project: the DOKS cluster with one node pool.
// Outputs: cluster_name, cluster_id, endpoint, kubeconfig (secret: the
// first kubeConfigs entry's rawConfig), kubeconfig_expires_at.
func Cluster(envToken bool) engine.Program {
	return func(ctx *engine.Context) error {
		s, err := cluster.Settings(ctx, cluster.Default{Key: VersionKey, Value: DefaultVersion}, cluster.Default{Key: RegionKey, Value: DefaultRegion},
			cluster.Default{Key: SizeKey, Value: DefaultSize}, cluster.Default{Key: NodeCountKey, Value: DefaultNodeCount})
		if err != nil {
			return err
		}
		nodes, err := cluster.NodeCount(NodeCountKey, s[3])
		if err != nil {
			return err
		}
		p := Provider(ctx, envToken)
		c := ctx.Resource(clusterType, "cluster", engine.Inputs{
			"name": Name("mara", ctx.Stack(), 63), "region": s[1], "version": s[0],
			"nodePool": map[string]any{"name": "default", "size": s[2], "nodeCount": nodes},
		}, engine.Provider(p))
		cluster.ExportCluster(ctx, c, c.Output("name"), c.Output("endpoint"), c.Output("kubeConfigs").Apply(rawConfig))
		ctx.Export(ExpiresAtOutput, c.Output("kubeConfigs").Apply(expiresAt))
		return nil
	}
}

// rawConfig is the rawConfig of the first entry of DOKS's kubeConfigs.
func rawConfig(v any) (any, error) {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil, fmt.Errorf("the DOKS cluster returned no kubeConfigs")
	}
	m, _ := list[0].(map[string]any)
	raw, _ := m["rawConfig"].(string)
	if raw == "" {
		return nil, fmt.Errorf("the DOKS cluster's kubeConfigs[0] has no rawConfig")
	}
	return raw, nil
}

// expiresAt is the expiresAt of the first entry of DOKS's kubeConfigs
// ("" when it has none).
func expiresAt(v any) (any, error) {
	list, _ := v.([]any)
	if len(list) == 0 {
		return "", nil
	}
	m, _ := list[0].(map[string]any)
	at, _ := m["expiresAt"].(string)
	return at, nil
}

// Credentials is the container-registry-credentials project: read-only
// Docker credentials of the registry, as a Secret of type
// kubernetes.io/dockerconfigjson in the ingress controller's namespace.
// Outputs: secret, namespace.
func Credentials(envToken bool) engine.Program {
	return func(ctx *engine.Context) error {
		reg := ctx.StackReference("container-registry")
		ns := ctx.StackReference(cluster.IngressNamespaceProject).Output(cluster.NamespaceOutput)
		p := Provider(ctx, envToken)
		creds := ctx.Resource(credentialsType, "registry", engine.Inputs{
			"registryName": reg.Output("registry_name"), "write": false,
		}, engine.Provider(p))
		k8s := cluster.Provider(ctx)
		sec := ctx.Resource("kubernetes:core/v1:Secret", "registry-credentials", engine.Inputs{
			"metadata":   map[string]any{"name": "registry-credentials", "namespace": ns},
			"type":       "kubernetes.io/dockerconfigjson",
			"stringData": map[string]any{".dockerconfigjson": engine.Secret(creds.Output("dockerCredentials"))},
		}, engine.Provider(k8s))
		ctx.Export(cluster.PullSecretOutput, sec.Output("metadata").Apply(func(v any) (any, error) {
			m, _ := v.(map[string]any)
			return m["name"], nil
		}))
		ctx.Export(cluster.NamespaceOutput, ns)
		return nil
	}
}

// DNSRecord is the dns-record project: an A record of kic-helm:fqdn to
// the ingress controller's load balancer address. Outputs: fqdn, address.
func DNSRecord(envToken bool) engine.Program {
	return func(ctx *engine.Context) error {
		fqdn, err := setting(ctx, "kic-helm:fqdn", "")
		if err != nil {
			return err
		}
		name, domain, err := SplitFQDN(fqdn)
		if err != nil {
			return err
		}
		ip := ctx.StackReference(cluster.IngressProject).Output(cluster.LBIPOutput).Apply(func(v any) (any, error) {
			if s, _ := v.(string); s != "" {
				return s, nil
			}
			return nil, fmt.Errorf("the ingress controller's load balancer has no IP address yet; run up again once it has one")
		})
		p := Provider(ctx, envToken)
		rec := ctx.Resource(dnsRecordType, "ingress", engine.Inputs{
			"domain": domain, "name": name, "type": "A", "value": ip, "ttl": 1800,
		}, engine.Provider(p))
		ctx.Export("fqdn", rec.Output("fqdn"))
		ctx.Export("address", ip)
		return nil
	}
}
