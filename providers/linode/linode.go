// Package linode is the definition of MARA's Linode environment: the LKE
// cluster, then the Kubernetes layers every provider with a cluster
// shares, with MARA's Harbor registry and its configuration (a Kubernetes
// Job against Harbor's API) after secrets and the registry's credentials
// after the ingress namespace; MARA's config questions and their
// validation; and the lke project's hook that adds the cluster to the
// user's kubeconfig.
package linode

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/projects/lke"
	"github.com/runnerhq/runner/providers"
	k8s "github.com/runnerhq/runner/providers/cluster"
)

// Name is the provider's name.
const Name = "linode"

// New returns the linode provider.
func New() *providers.Provider {
	return &providers.Provider{
		Name:        Name,
		Description: "MARA's Linode environment: LKE, Harbor, NGINX ingress, logging, monitoring and Bank of Sirius (needs a Linode token and the linode and kubernetes plugins)",
		Projects:    projects(),
		Questions:   append(questions(), k8s.Questions()...),
		Validate:    func(get func(string) (string, bool)) error { return cluster.CheckSettings(get) },
		Plugins: []providers.PluginSpec{
			{Name: "linode", Version: "5.1.1", OwnEnv: []string{lke.TokenEnv}, Lookup: lookup,
				Help: "the linode plugin needs an API token: set LINODE_TOKEN in the environment or the workspace's environment file, or `runner config set --secret linode:token TOKEN`"},
			k8s.KubernetesPlugin(),
		},
	}
}

func projects() []providers.Project {
	envToken := func(rt providers.Runtime) bool {
		for _, kv := range rt.Environ {
			if v, ok := strings.CutPrefix(kv, lke.TokenEnv+"="); ok && v != "" {
				return true
			}
		}
		return false
	}
	own := providers.Project{Name: "lke", Category: providers.Infrastructure,
		Description: "LKE cluster (linode:k8s_version, linode:region, linode:instance_type, linode:node_count)",
		Program:     func(rt providers.Runtime) engine.Program { return lke.Cluster(envToken(rt)) }, OnSuccess: updateKubeconfig}
	kubeconfig := providers.Project{Description: "kubeconfig of the LKE cluster (from lke)", DependsOn: []string{"lke"},
		Program: providers.StaticProgram(cluster.FromProject("lke"))}
	out := []providers.Project{own}
	for _, p := range k8s.Projects(kubeconfig) {
		if p.Name == cluster.IngressProject {
			p.OnSuccess = dnsNotice
		}
		out = append(out, p)
		switch p.Name {
		case "secrets":
			out = append(out, providers.Project{Name: "harbor", Category: providers.Kubernetes,
				Description: "Harbor container registry (Helm) at harbor.<kic-helm:fqdn>, its certificate from Let's Encrypt by cert-manager, its three passwords from the stack config's linode:harbor_* secrets",
				DependsOn:   []string{cluster.KubeconfigProject, cluster.CertmgrProject}, Program: providers.StaticProgram(cluster.Harbor)},
				providers.Project{Name: "harbor-configuration", Category: providers.Kubernetes,
					Description: "Harbor's configuration once it is healthy (the project library made private), by a Kubernetes Job against Harbor's API",
					DependsOn:   []string{cluster.KubeconfigProject, "harbor"}, Program: providers.StaticProgram(cluster.HarborConfiguration)})
		case cluster.IngressNamespaceProject:
			out = append(out, providers.Project{Name: "container-registry-credentials", Category: providers.Kubernetes,
				Description: "Harbor's Docker credentials as a Secret in the ingress controller's namespace",
				DependsOn:   []string{cluster.KubeconfigProject, "harbor", cluster.IngressNamespaceProject},
				Program:     providers.StaticProgram(lke.Credentials)})
		}
	}
	return out
}

// updateKubeconfig is the lke project's on_success hook: as MARA's
// update_kubeconfig.py, it merges the cluster's kubeconfig (LKE gives it
// base64; the lke project exports it decoded) into the user's: cluster,
// user and context, the context current, mode 0600.
func updateKubeconfig(_ context.Context, in providers.HookInput) error {
	return k8s.MergeOutput(in, "LKE cluster", func(v string) ([]byte, error) { return []byte(v), nil })
}

func questions() []providers.Question {
	secret := func(key, msg string) providers.Question {
		return providers.Question{Key: key, Message: msg, Secret: true, Validate: providers.NonEmpty}
	}
	return []providers.Question{
		{Key: lke.TokenKey, Message: "Linode API token", Secret: true, SetBy: []string{lke.TokenEnv}, Validate: providers.APIToken("a Linode API token"),
			Help: "a personal access token with read/write on Kubernetes; LINODE_TOKEN in the environment or the environment file is used instead when set"},
		// MARA asked these two next: Harbor is served at harbor.<fqdn>
		// with a Let's Encrypt certificate whose account is the email.
		{Key: cluster.FQDNKey, Message: "Fully qualified domain name (FQDN) of the application", Validate: fqdn,
			Help: "such as mara.example.com: Harbor is served at harbor.<it>; point the DNS names it and harbor.<it> at the ingress controller's load balancer for Let's Encrypt to issue Harbor's certificate"},
		{Key: cluster.SOAEmailKey, Message: "Email address of the container registry domain's owner", Validate: email,
			Help: "the Let's Encrypt account of Harbor's certificate (MARA's DNS Start of Authority email)"},
		{Key: lke.VersionKey, Message: "Kubernetes version of LKE", Help: "a minor version LKE supports, " + oldestMinor + " or later",
			Default: providers.Constant(lke.DefaultVersion), Validate: version},
		{Key: lke.RegionKey, Message: "Linode region", Default: providers.Constant(lke.DefaultRegion),
			Validate: providers.Matches(`^[a-z]{2}-[a-z]+(-[0-9])?$`, "a Linode region such as us-central")},
		{Key: lke.TypeKey, Message: "Linode type of the nodes", Default: providers.Constant(lke.DefaultType),
			Validate: providers.Matches(`^g[0-9]+-[a-z]+(-[a-z]+)?-[0-9]+$`, "a Linode type such as g6-standard-8")},
		{Key: lke.NodeCountKey, Message: "Number of nodes", Default: providers.Constant(lke.DefaultNodeCount), Validate: providers.NodeCount(100)},
		{Key: lke.HAKey, Message: "Highly available control plane (true or false)", Default: providers.Constant(lke.DefaultHA), Choices: []string{"true", "false"},
			Help: "true (MARA's default) runs LKE's control plane replicated, which Linode bills; false runs one"},
		secret(cluster.HarborAdminKey, "Password of Harbor's admin user"),
		secret(cluster.HarborDBKey, "Password of Harbor's database"),
		secret(cluster.HarborSudoKey, "Password of Harbor's sudo user"),
	}
}

// oldestMinor is the oldest Kubernetes minor version LKE still runs
// (2026-11); older versions are refused.
const oldestMinor = "1.32"

var (
	fqdnShape = providers.Matches(`^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`,
		"a fully qualified domain name in a domain of yours, such as mara.example.com")
	email = providers.Matches(`^[^@\s]+@([A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$`, "an email address such as admin@example.com")
)

// fqdn accepts a host name in a domain (labels of 1 to 63 letters,
// digits or dashes) short enough that harbor.<it> is one too.
func fqdn(v string) error {
	if err := fqdnShape(v); err != nil {
		return err
	}
	if len(v) > 253-len("harbor.") {
		return fmt.Errorf("must be at most %d characters long, so that harbor.<it> is a DNS name, not %d", 253-len("harbor."), len(v))
	}
	return nil
}

var versionRE = regexp.MustCompile(`^1\.(\d+)$`)

func version(v string) error {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("must be a Kubernetes minor version such as %s, not %q", lke.DefaultVersion, v)
	}
	minor, _ := strconv.Atoi(m[1])
	oldest, _ := strconv.Atoi(strings.TrimPrefix(oldestMinor, "1."))
	if minor < oldest {
		return fmt.Errorf("must be a version LKE still supports (%s or later, such as %s): %s is past LKE support", oldestMinor, lke.DefaultVersion, v)
	}
	return nil
}
