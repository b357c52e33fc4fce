// Package do is the definition of MARA's DigitalOcean environment: its
// projects (the container registry and the DOKS cluster, then the
// Kubernetes layers every provider with a cluster shares, with the
// registry's credentials and the DNS record of the ingress controller's
// host name inserted as MARA did), MARA's config questions and their
// validation, and the domk8s project's hook that adds the cluster to the
// user's kubeconfig. Its resources are those of Pulumi's digitalocean and
// kubernetes plugins.
package do

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/projects/docean"
	"github.com/runnerhq/runner/providers"
	k8s "github.com/runnerhq/runner/providers/cluster"
)

// Name is the provider's name.
const Name = "do"

// New returns the do provider.
func New() *providers.Provider {
	return &providers.Provider{
		Name:        Name,
		Description: "MARA's DigitalOcean environment: container registry, DOKS, NGINX ingress with a DNS record, logging, monitoring and Bank of Sirius (needs a DigitalOcean token and the digitalocean and kubernetes plugins)",
		Projects:    projects(),
		Questions:   append(questions(), k8s.Questions()...),
		Validate:    validate,
		Plugins: []providers.PluginSpec{
			{Name: "digitalocean", Version: "4.80.1", OwnEnv: []string{docean.TokenEnv}, Identity: identity, Lookup: lookup,
				Help: "the digitalocean plugin needs an API token: set DIGITALOCEAN_TOKEN in the environment or the workspace's environment file, or `runner config set --secret digitalocean:token TOKEN`"},
			k8s.KubernetesPlugin(),
		},
	}
}

// program adapts a do program, which needs to know whether the token comes
// from the environment, to Project.Program.
func program(p func(envToken bool) engine.Program) func(providers.Runtime) engine.Program {
	return func(rt providers.Runtime) engine.Program { return p(envHas(rt.Environ, docean.TokenEnv)) }
}

// envHas reports whether environ sets name to a non-empty value.
func envHas(environ []string, name string) bool { return envValue(environ, name) != "" }

// envValue is the value environ gives name, the last one ("" when none).
func envValue(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// registry is the container-registry project's program: it asks
// DigitalOcean's API (DIGITALOCEAN_API_URL, else DigitalOcean's) for the
// account's registry with the token of the environment, else of the
// stack config.
func registry(rt providers.Runtime) engine.Program {
	return docean.Registry(docean.Account{API: envValue(rt.Environ, docean.APIEnv), EnvToken: envValue(rt.Environ, docean.TokenEnv)})
}

// projects are MARA's DigitalOcean projects: container-registry and
// domk8s, the shared Kubernetes projects after kubeconfig (domk8s's
// kubeconfig), container-registry-credentials after the ingress
// namespace and dns-record after the ingress controller.
func projects() []providers.Project {
	inf := providers.Infrastructure
	own := []providers.Project{
		{Name: "container-registry", Category: inf, Description: "DigitalOcean container registry: the account's own when it has one, else a new one (docean:container_registry_subscription_tier)",
			Program: registry},
		{Name: "domk8s", Category: inf, Description: "DOKS cluster (docean:k8s_version, docean:region, docean:instance_size, docean:node_count)",
			Program: program(docean.Cluster), OnSuccess: updateKubeconfig},
	}
	kubeconfig := providers.Project{Description: "kubeconfig of the DOKS cluster (from domk8s)", DependsOn: []string{"domk8s"},
		Program: providers.StaticProgram(cluster.FromProject("domk8s"))}
	var out []providers.Project
	for _, p := range append(own, k8s.Projects(kubeconfig)...) {
		if p.Name == cluster.IngressProject {
			// The controller's service account pulls with the registry's
			// credentials, as MARA's did.
			p.DependsOn = append(slices.Clone(p.DependsOn), credentialsProject)
			p.Program = providers.StaticProgram(cluster.IngressControllerPulling(credentialsProject))
		}
		out = append(out, p)
		switch p.Name {
		case cluster.IngressNamespaceProject:
			out = append(out, providers.Project{Name: credentialsProject, Category: providers.Kubernetes,
				Description: "read-only Docker credentials of the registry as a Secret in the ingress controller's namespace, which its image is pulled with",
				DependsOn:   []string{cluster.KubeconfigProject, "container-registry", cluster.IngressNamespaceProject},
				Program:     program(docean.Credentials)})
		case cluster.IngressProject:
			out = append(out, providers.Project{Name: "dns-record", Category: providers.Kubernetes,
				Description: "DNS A record of kic-helm:fqdn to the ingress controller's load balancer",
				DependsOn:   []string{cluster.IngressProject}, Program: program(docean.DNSRecord)})
		}
	}
	return out
}

// credentialsProject puts the registry's credentials into the cluster.
const credentialsProject = "container-registry-credentials"

// updateKubeconfig is the domk8s project's on_success hook: it merges the
// cluster's kubeconfig (DOKS's kubeConfigs[0].rawConfig) into the user's
// (the file of $KUBECONFIG that holds its context, else the first, else
// ~/.kube/config) as `doctl kubernetes cluster kubeconfig save` does,
// without doctl; as MARA's hook, it leaves the kubeconfig and its current
// context alone when the cluster's entries are there already.
func updateKubeconfig(_ context.Context, in providers.HookInput) error {
	if err := k8s.MergeOutputOnChange(in, "DOKS cluster", func(v string) ([]byte, error) { return []byte(v), nil }); err != nil {
		return err
	}
	warnExpired(in, time.Now())
	return nil
}

// warnExpired tells the user when the kubeconfig the hook merged holds a
// token that has expired (DigitalOcean's last 7 days) or expires within a
// day, and the command that renews it: a refresh reads the cluster back,
// and the digitalocean plugin then fetches new credentials; the up that
// follows merges them.
func warnExpired(in providers.HookInput, now time.Time) {
	v, _ := resource.Unsecret(in.Outputs[docean.ExpiresAtOutput])
	s, _ := v.(string)
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return
	}
	renew := in.Runtime.Command("-p " + Name + " up --refresh")
	switch {
	case !at.After(now):
		fmt.Fprintf(in.Log, "warning: the DOKS cluster's kubeconfig token expired at %s (DigitalOcean's tokens last 7 days), so kubectl and the Kubernetes projects will be refused; run `%s` to fetch a new one and merge it\n",
			at.UTC().Format(time.RFC3339), renew)
	case at.Sub(now) < 24*time.Hour:
		fmt.Fprintf(in.Log, "warning: the DOKS cluster's kubeconfig token expires at %s; run `%s` then to fetch a new one and merge it\n",
			at.UTC().Format(time.RFC3339), renew)
	}
}
